"""What the tests of the scripts' refusals share (not a test module): a refusal comes before
the long work (stand-ins raise :class:`WorkStarted`) and is exit status 2 with one line."""
from __future__ import annotations

from collections.abc import Callable


class WorkStarted(Exception):
    """Raised by a stand-in for the long work a refusal must come before."""


def no_work(*args, **kwargs):
    raise WorkStarted("the long work started")


def refusal(main: Callable, argv: list[str], capsys) -> str:
    """Exit status 2 without a traceback; the last line of stderr."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err, err
    return err.strip().splitlines()[-1]
