"""Command line referee: ``python -m cuegym.rules <command> --game <game>``.

Commands:
    score   read ``{"state": .., "shot": ..}`` (simulated), ``{"state": .., "log": ..}`` (a
            physics output) or ``{"state": .., "hand_log": ..}`` (a hand-written log; the rule
            books' CLI sections), or a list of them, as JSON on stdin; print
            ``{"outcome": .., "state": ..}`` (a list for a list).
    new     print the state of a new game (``--players N``).
    play    play one whole game with real physics and random strikes; print its record.

Games are plug-ins: ``--game NAME`` imports the modules in :data:`GAMES` lazily and takes the first
function of :data:`ENTRY_POINTS` it finds: ``score_json(obj) -> dict`` (or ``score_cli``) for
``score``; ``new_state_json(n_players, *, seed) -> dict`` for ``new``; ``play_game(n_players, *,
seed, max_shots) -> dict`` (a record with ``shots``, ``state``, ``ranking``, ``n_shots``) for
``play``; with ``--table`` they get ``table=`` and with ``--rules`` (options over the shipped
rules, as ``evaluate.py`` takes them) ``rules=``. Errors in the input are reported on stderr in one
line that names the JSON path of the bad value (``input[1]: state.scores[2] must be ...`` for the
second item of a list), with exit status 2.

Examples:
    python -m cuegym.rules new --game keglebillard --players 3 > state.json
    echo '{"state": {"players": 2}, "shot": {"balls": {"red": {"x": -0.7, "y": 0.1}},
           "strike": {"ball": "red", "V0": 3, "phi": 5, "theta": 0, "a": 0, "b": 0}}}' |
        python -m cuegym.rules score --game keglebillard
    python -m cuegym.rules play --game keglebillard --players 4 --seed 1
    python -m cuegym.rules play --game keglebillard --rules variant=ddbu distance=30
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

from cuegym.cli_errors import (
    check_indent,
    cli_main,
    debug_mode,
    prog_name,
    seed_arg,
    unknown,
)
from cuegym.configs import load_json
from cuegym.rules.inputs import MAX_PLAYERS

#: --game name -> the modules implementing it, searched in order (imported only when asked for).
GAMES = {
    "keglebillard": ("cuegym.rules.keglebillard_game",),
    "golfbillard": ("cuegym.rules.golfbillard", "cuegym.rules.golfbillard_game"),
}


#: command -> accepted function names, first found wins.
ENTRY_POINTS = {
    "score": ("score_json", "score_cli"),
    "new": ("new_state_json",),
    "play": ("play_game",),
}


SCORE_HELP = ("Score one shot (or a list of them) read as JSON from stdin; print "
              '{"outcome": .., "state": <the state after it>} (a list for a list).')
SCORE_FORMAT = """\
input: {"state": <game state JSON; golfbillard: null for a new match>,
        exactly one of
          "shot": <physics shot object (cuegym simulate --help); table and balls default
                   to the state's>,
          "log": <an output object of cuegym simulate; golfbillard: simulate the shot with
                  "event_states": true for exact ball paths>,
          "hand_log": <a log written by hand>,
        with a log or hand_log: keglebillard "place" (the red's placement, with ball in
          hand), golfbillard "strike" (the stroke's strike; a list of two in the opening),
        optional: "rules" (option overrides), "inject" (what physics cannot know),
          "allow_overflow"; golfbillard "player" (duo), "choices" (penalty spots, pick)}

Every key, with examples: docs/rules_keglebillard.md and docs/rules_golfbillard.md (CLI)."""


class CliError(Exception):
    """A problem to report in one line, without a traceback."""


def _import(game: str, module: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and module.startswith(exc.name):
            raise CliError(f"the {game} rules are not available: module {module} is missing"
                           ) from None
        raise


def entry_point(game: str, command: str) -> Callable[..., Any]:
    """The function of ``game`` for ``command``; a clear CliError if the game is unknown, its
    module is missing, or it lacks the function."""
    if game not in GAMES:
        raise CliError(unknown("game", game, GAMES))
    modules = GAMES[game]
    first = _import(game, modules[0])
    for module in modules:
        mod = first if module == modules[0] else _import(game, module)
        for name in ENTRY_POINTS[command]:
            fn = getattr(mod, name, None)
            if fn is not None:
                return fn
    names = " or ".join(f"{n}()" for n in ENTRY_POINTS[command])
    raise CliError(f"the {game} rules ({', '.join(modules)}) provide no {names} for "
                   f"'{command}'")


def _score_all(fn: Callable[[Any], Any], obj: Any) -> Any:
    """``fn(obj)``, or a list of results for a list of inputs; an error in item i is reported
    as ``input[i]: ...``."""
    if not isinstance(obj, list):
        return fn(obj)
    out = []
    for i, item in enumerate(obj):
        try:
            out.append(fn(item))
        except ValueError as exc:
            raise CliError(f"input[{i}]: {exc}") from None
    return out


def _read_stdin() -> str:
    """stdin as text, decoded strictly as UTF-8 (a CliError where it is not): the text layer
    reads bytes that are not UTF-8 as lone surrogates (surrogateescape in the C and C.UTF-8
    locales) and they were scored, where ``physics simulate`` refuses them."""
    data = getattr(sys.stdin, "buffer", sys.stdin).read()  # a StringIO (tests) has no buffer
    try:
        if isinstance(data, bytes):
            return data.decode("utf-8")
        data.encode("utf-8")  # a lone surrogate: a byte that was not UTF-8
        return data
    except UnicodeError as exc:
        bad = exc.object[exc.start]
        what = (f"byte 0x{bad:02x}" if isinstance(bad, int) else
                f"byte 0x{ord(bad) - 0xDC00:02x}" if 0xDC80 <= ord(bad) <= 0xDCFF else
                f"U+{ord(bad):04X}")
        raise CliError(f"stdin is not valid JSON: it is not UTF-8 text ({what} at offset "
                       f"{exc.start})") from None


def _table_kw(args: argparse.Namespace) -> dict[str, Any]:
    """``--table`` as the game's ``new``/``play`` take it: keglebillard's ``table=`` (checked
    there, naming the known tables); golfbillard has only its own."""
    if args.table is None:
        return {}
    from cuegym.configs import check_game_table

    check_game_table(args.game, args.table)  # a table the game is not played on, named
    return {"table": args.table} if args.game == "keglebillard" else {}


def _rules_help() -> str:
    from cuegym.experiments.train_config import RULES_HELP

    return RULES_HELP + "; golfbillard's duo follows --players"


def _kegle_first_player(args: argparse.Namespace) -> str:
    """The first_player option of the keglebillard rules ``--rules`` gives (K-4)."""
    from cuegym.rules.keglebillard_config import load_rules

    return load_rules(_rules_kw(args).get("rules")).first_player


def _rules_kw(args: argparse.Namespace) -> dict[str, Any]:
    """``--rules`` as the game's ``new``/``play`` take it (``rules=``, options over the shipped
    rules, checked there); nothing when none is given."""
    if args.rules is None:
        return {}
    from cuegym.experiments.train_config import parse_rules

    return {"rules": parse_rules(args.rules)}


@cli_main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog_name("python -m cuegym.rules"),
                                     description="Score shots and play games by the rules.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_score = sub.add_parser("score", help="score a shot read as JSON from stdin",
                             description=SCORE_HELP, epilog=SCORE_FORMAT,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
    p_new = sub.add_parser("new", help="print the state of a new game")
    p_play = sub.add_parser("play", help="play a whole game with random strikes")
    for p in (p_score, p_new, p_play):
        p.add_argument("--game", default="keglebillard",
                       help=f"one of {', '.join(GAMES)} (default keglebillard)")
        p.add_argument("--indent", type=int, default=None,
                       help="indent the JSON output (default: one line)")
    for p in (p_new, p_play):
        p.add_argument("--players", type=int, default=2,
                       help="number of players (default 2; keglebillard 2 or more; "
                            "golfbillard 2, and for play 4 for duos: a new state is the same "
                            "for duos, whose play is the score input's rules.duo)")
    for p in (p_new, p_play):
        p.add_argument("--table", default=None,
                       help="keglebillard's table config (keglebillard, the default, or "
                            "keglebillard-helmatch); golfbillard has one table")
    for p in (p_new, p_play):
        p.add_argument("--rules", nargs="+", action="extend", metavar="KEY=VALUE|FILE",
                       help=_rules_help())
    p_new.add_argument("--seed", type=seed_arg, default=None,
                       help="seed of the state's generator (golfbillard: its penalty-spot and "
                            "pick draws); a new keglebillard game draws nothing")
    p_play.add_argument("--seed", type=seed_arg, default=0, help="random seed")
    p_play.add_argument("--max-shots", type=int, default=5000, help="stop after this many shots")
    p_play.add_argument("--shots", action="store_true", help="include every shot's outcome")
    args = parser.parse_args(argv)
    # the subcommand's own usage line with the error (the parent's named no option)
    command = {"score": p_score, "new": p_new, "play": p_play}[args.command]
    check_indent(command, args.indent)
    if getattr(args, "max_shots", 1) < 1:
        command.error(f"--max-shots must be >= 1, got {args.max_shots}")
    if args.command != "score" and args.game == "keglebillard" and \
            not 2 <= args.players <= MAX_PLAYERS:  # (the rules' own error named n_players)
        command.error(f"--players: keglebillard is played by 2 to {MAX_PLAYERS} players (K-1), "
                      f"got {args.players}")
    try:
        if args.command == "new" and args.seed is not None and args.game == "keglebillard" \
                and _kegle_first_player(args) != "random":
            command.error(f"--seed {args.seed}: a new keglebillard game draws nothing unless "
                          "the rules' first_player is random (K-4), so a seed would change "
                          "nothing")
        fn = entry_point(args.game, args.command)
        if args.command == "score":
            try:
                obj = load_json(_read_stdin())
            except ValueError as exc:  # malformed, not UTF-8, or a key given twice
                raise CliError(f"stdin is not valid JSON: {exc}") from None
            except RecursionError:
                raise CliError("stdin is not valid JSON: nested too deeply") from None
            result = _score_all(fn, obj)
        elif args.command == "new":
            result = fn(args.players, seed=0 if args.seed is None else args.seed,
                        **_table_kw(args), **_rules_kw(args))
        else:
            record = fn(args.players, seed=args.seed, max_shots=args.max_shots,
                        **_table_kw(args), **_rules_kw(args))
            result = record if args.shots else {k: v for k, v in record.items() if k != "shots"}
    except (CliError, ValueError) as exc:
        if debug_mode():
            raise
        print("error: " + " ".join(str(exc).splitlines()), file=sys.stderr)  # one line
        return 2
    json.dump(result, sys.stdout, indent=args.indent)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
