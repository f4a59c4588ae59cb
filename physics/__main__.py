"""Command line: ``python -m cuegym.physics simulate < in.json > out.json``.

Reads one shot object or a list of them (format in cuegym.physics.jsonio and the README) and
prints the result(s) as JSON. Bad input exits with status 2 and a message naming the value.
"""

from __future__ import annotations

import argparse
import sys

from cuegym.cli_errors import check_indent, cli_main, debug_mode, prog_name


@cli_main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog_name("python -m cuegym.physics"),
                                     description="cuegym physics command line")
    sub = parser.add_subparsers(dest="command", required=True)
    from . import jsonio
    from .api import PhysicsInputError

    doc = jsonio.__doc__
    p_sim = sub.add_parser(
        "simulate", help="simulate JSON shot(s) from stdin, print results to stdout",
        description="Simulate one JSON shot object, or a list of them, read from stdin; print "
                    "the result(s) to stdout as JSON.",
        # the format as jsonio's docstring gives it, reST markup dropped
        epilog=doc[doc.index("A shot object"):doc.index("Speed:")].replace(
            "``", "`").replace("::\n", ":\n"),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p_sim.add_argument("--indent", type=int, default=None,
                       help="indent the JSON output by this many spaces (default: one line)")
    top_error = parser.error
    given = list(sys.argv[1:] if argv is None else argv)

    def error(message: str):
        # arguments after the (one) subcommand: its usage line with them, not the parent's
        # (before it, e.g. "--bogus simulate", they are the parent's)
        after = "simulate" in given and not given[0].startswith("-")
        (p_sim.error if message.startswith("unrecognized arguments") and after
         else top_error)(message)

    parser.error = error
    args = parser.parse_args(argv)
    check_indent(p_sim, args.indent)

    if args.command == "simulate":
        try:
            return jsonio.main_simulate(sys.stdin, sys.stdout, indent=args.indent)
        except PhysicsInputError as exc:
            if debug_mode():
                raise
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
