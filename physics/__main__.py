"""Command line: ``python -m cuegym.physics simulate < in.json > out.json``.

Reads one shot object or a list of them (format in cuegym.physics.jsonio and the README) and
prints the result(s) as JSON. Bad input exits with status 2 and a message naming the value.
"""

from __future__ import annotations

import argparse
import sys

from cuegym.cli_errors import cli_main, prog_name


@cli_main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=prog_name("python -m cuegym.physics"),
                                     description="cuegym physics command line")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("simulate", help="simulate JSON shot(s) from stdin, print results to stdout")
    args = parser.parse_args(argv)
    from .api import PhysicsInputError
    from .jsonio import main_simulate

    if args.command == "simulate":
        try:
            return main_simulate(sys.stdin, sys.stdout)
        except PhysicsInputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    return 1


if __name__ == "__main__":
    sys.exit(main())
