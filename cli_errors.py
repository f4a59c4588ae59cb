"""Errors for users: one-line messages, "did you mean", and the wrapper around every command line.

Every cuegym command (``cuegym ...``, ``python -m cuegym.physics``, ``python -m cuegym.rules``,
``python experiments/*.py``) runs its ``main`` through :func:`cli_main`, so a user mistake
(a bad value, a missing file, bad YAML or JSON, an unknown key) prints one line

    error: unknown agent 'planer' (did you mean 'planner'?); known: ...

on stderr and exits with status 2, without a traceback; output into a closed pipe (``| head``)
ends quietly; Ctrl-C ends with status 130. Set ``CUEGYM_DEBUG=1`` to get the traceback instead.

Library code raises plain ``ValueError`` (or :class:`UsageError`, a ValueError) with a message
naming the bad value, using :func:`unknown` for names picked from a known set. This module
imports nothing from cuegym, so every layer can use it.
"""

from __future__ import annotations

import difflib
import functools
import math
import numbers
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

#: Exit status of a user mistake (argparse's too).
EXIT_USAGE = 2
#: Exit status after Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130
#: Exit status when the reader of stdout went away (128 + SIGPIPE, as ``seq 1e9 | head`` does).
EXIT_BROKEN_PIPE = 141


class UsageError(ValueError):
    """A user mistake to report in one line (exit status 2)."""


class MissingFileError(FileNotFoundError, ValueError):
    """A file the caller named is missing or is a folder: a ValueError naming it, as every bad
    argument is, and a FileNotFoundError for callers that look for that."""


def existing_file(path: str | os.PathLike, what: str) -> Path:
    """``path`` (a :class:`~pathlib.Path`) if it is a file; :class:`MissingFileError` naming it
    and ``what`` it should be (``"model file"``) when it is missing or a folder (which would
    otherwise fail deep inside zipfile or torch with an IsADirectoryError)."""
    p = Path(path)
    if p.is_dir():
        article = "an" if what[:1] in "aeiou" else "a"
        raise MissingFileError(f"{p} is a folder, not {article} {what}")
    if not p.exists():
        raise MissingFileError(f"no {what} {p}")
    return p


def prog_name(module_prog: str) -> str:
    """argparse's ``prog`` for a module's ``main``: the ``cuegym`` command's name for it when
    that command runs it (:mod:`cuegym.cli` sets ``sys.argv[0]``, e.g. ``cuegym rules``), so
    usage lines and errors name what the user typed; a console script of its own
    (``cuegym-physics``) by its name; ``module_prog`` (``python -m cuegym.rules``) otherwise."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 == "cuegym" or argv0.startswith("cuegym "):
        return argv0
    script = Path(argv0).name  # a console script of its own (cuegym-physics), by its name
    return script if script.startswith("cuegym-") else module_prog


def script_prog(module_name: str, spec: Any) -> str | None:
    """argparse's ``prog`` for a script's ``main`` (call it with the script's ``__name__`` and
    ``__spec__``): what the user typed to run it. The ``cuegym`` command's name when that runs
    it; ``python -m cuegym.experiments.evaluate`` when run as a module (argparse would give the
    file's name, which does not run that way); else None, argparse's own (the file's name, as
    in ``python experiments/evaluate.py``)."""
    argv0 = sys.argv[0] if sys.argv else ""
    if argv0 == "cuegym" or argv0.startswith("cuegym "):
        return argv0
    if module_name == "__main__" and getattr(spec, "name", None):
        return f"python -m {spec.name}"
    return None


def did_you_mean(value: Any, known: Iterable[Any]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``known`` to ``value``, else ``""``: the
    best difflib match (case-insensitive), or else the shortest name containing ``value`` or
    contained in it (``rgb`` -> ``rgb_array``, ``mask`` -> ``reset_mask``)."""
    names = [str(k) for k in known if k is not None]
    lower = {n.lower(): n for n in names}
    v = str(value).lower()
    close = difflib.get_close_matches(v, list(lower), n=1, cutoff=0.6)
    if not close and len(v) >= 3:
        close = sorted((n for n in lower if v in n or (len(n) >= 3 and n in v)), key=len)[:1]
    return f" (did you mean {lower[close[0]]!r}?)" if close else ""


def unknown(kind: str, value: Any, known: Iterable[Any]) -> str:
    """The message for a ``value`` not among ``known``: ``unknown agent 'planer' (did you mean
    'planner'?); known: 'geometric', 'planner'``."""
    names = list(known)
    listed = ", ".join(repr(k) for k in names)
    return f"unknown {kind} {value!r}{did_you_mean(value, names)}; known: {listed}"


def check_int(name: str, value: Any, lo: int = 1) -> int:
    """``value`` as an int >= ``lo`` (Python or numpy integers); a float (2.5 would silently be
    2), a bool or a string raises a :class:`UsageError` naming the setting."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise UsageError(f"{name} must be an integer >= {lo}, got {value!r}")
    if value < lo:
        raise UsageError(f"{name} must be >= {lo}, got {value!r}")
    return int(value)


#: The largest --indent of the JSON command lines (spaces per level; a huge one is a
#: MemoryError or OverflowError in json.dump).
MAX_INDENT = 64


def check_indent(parser: Any, indent: int | None) -> None:
    """A JSON command's ``--indent`` (None: one line): 0..:data:`MAX_INDENT`, else the parser's
    usage error (exit 2) naming it."""
    if indent is not None and indent < 0:
        parser.error(f"--indent must be >= 0, got {indent}")
    if indent is not None and indent > MAX_INDENT:  # json.dump would crash on it
        parser.error(f"--indent must be at most {MAX_INDENT}, got {indent}")


def seed_arg(text: str) -> int:
    """argparse ``type`` of a ``--seed`` option: an integer >= 0 (numpy's generators take no
    negative seed), checked when the command line is read, not after hours of work."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {value}")
    if value >= 2**63:  # states and kernels keep seeds as int64: a bigger one crashed later
        raise argparse.ArgumentTypeError(f"must be an integer below 2**63, got {value}")
    return value


def weight_arg(text: str) -> float:
    """argparse ``type`` of a weight option (``--weight``): a finite number >= 0 (``nan``,
    ``inf`` and negatives refused when the command line is read)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}") from None
    if not 0.0 <= value < math.inf:  # (nan fails both comparisons)
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def check_counts(parser: Any, args: Any, *names: str) -> None:
    """Refuse (``parser.error``: status 2, the usage line) any of the integer options ``names``
    of ``args`` below 1: ``--games must be >= 1, got 0``."""
    for name in names:
        value = getattr(args, name)
        if value < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1, got {value}")


def check_writable_dir(path: str | os.PathLike, option: str,
                       given: str | os.PathLike | None = None) -> None:
    """Refuse, before any work, an output folder that could not be made or written: one of its
    parents is a file, or the folder (else its nearest existing parent) may not be written to.
    Nothing is created (a later mistake leaves no empty folder behind). ``given``: the value
    the option was given, when ``path`` is derived from it (an output file's folder), so the
    message quotes what the user typed."""
    p = Path(path).expanduser().absolute()
    shown = str(path if given is None else given)
    for parent in (p, *p.parents):
        if parent.exists():
            if not parent.is_dir():
                raise UsageError(f"{option} {shown!r}: {str(parent)!r} is a file, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise UsageError(f"{option} {shown!r}: {str(parent)!r} may not be written to")
            return


def packaged_path(path: str | os.PathLike) -> Path:
    """``path`` as given (relative to the working directory) if it exists, else the same
    relative path inside the installed cuegym package if that exists (``configs/...`` and
    ``agents/pretrained/...`` ship with it), else ``path`` unchanged, for the caller's own
    "not found" error. So the commands and ``make_agent`` work from any directory."""
    p = Path(path).expanduser()
    if p.exists() or p.is_absolute():
        return p
    packaged = Path(__file__).resolve().parent / p
    return packaged if packaged.exists() else p


def in_checkout() -> bool:
    """Whether cuegym runs from its repository checkout (not an installed package)."""
    return (Path(__file__).resolve().parent / "Makefile").is_file()


def checkout_path(*parts: str) -> Path:
    """A path of the repository checkout (``docs/img``, ``.venv-pooltool``) when cuegym runs
    from one, else the same path under the working directory: the scripts that refresh the
    docs or keep a cache write there, and an installed package is no place to write (nor does
    the wheel have a ``docs/``)."""
    return (Path(__file__).resolve().parent if in_checkout() else Path.cwd()).joinpath(*parts)


def user_cache_dir(app: str) -> Path:
    """The user's cache folder of ``app``, as numba's ``AppDirs(app).user_cache_dir`` puts it
    on Linux (``$XDG_CACHE_HOME/<app>`` or ``~/.cache/<app>``) and macOS
    (``~/Library/Caches/<app>``): numba's user-wide kernel cache (``numba``) and cuegym's own
    (``cuegym``, position banks made on a read-only install)."""
    home = os.path.expanduser("~")
    if sys.platform == "darwin":
        return Path(home, "Library", "Caches", app)
    return Path(os.environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache"), app)


def resolve_path(path: str | os.PathLike, what: str = "file") -> Path:
    """A user-given file, found by :func:`packaged_path`.

    Raises:
        UsageError: neither exists (the message names the path).
    """
    p = packaged_path(path)
    if p.exists():
        return p
    raise UsageError(f"{what} not found: {str(path)!r}")


def one_line(exc: BaseException) -> str | None:
    """The one-line message of a user mistake, or None when ``exc`` looks like a bug."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a dependency
        yaml = None
    if yaml is not None and isinstance(exc, yaml.YAMLError):
        mark = getattr(exc, "problem_mark", None)
        where = f"{mark.name}, line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        return f"bad YAML: {where}{problem}"
    if isinstance(exc, FileNotFoundError | FileExistsError | IsADirectoryError |
                  NotADirectoryError | PermissionError) or (
            type(exc) is OSError and exc.filename is not None):  # e.g. a read-only file system
        name = exc.filename if exc.filename is not None else ""
        return f"{exc.strerror or type(exc).__name__}: {str(name)!r}" if name else str(exc)
    if isinstance(exc, ModuleNotFoundError) and exc.name and not exc.name.startswith("cuegym"):
        return (f"this needs the package {exc.name!r}, which is not installed (pip install "
                "'cuegym[rl]' installs the optional dependencies)")
    if _is_unknown_env(exc):  # gymnasium.make with an id that is not registered
        return str(exc)
    if isinstance(exc, ValueError):  # UsageError, ConfigError, JSON errors, bad values
        return str(exc) or type(exc).__name__
    return None


def _is_unknown_env(exc: BaseException) -> bool:
    """Whether ``exc`` is gymnasium's error for an env id that is not registered (its message
    names the id and suggests the closest one)."""
    try:
        from gymnasium.error import DeprecatedEnv, UnregisteredEnv
    except ImportError:  # pragma: no cover - gymnasium is a dependency
        return False
    return isinstance(exc, UnregisteredEnv | DeprecatedEnv)


def _quiet_broken_pipe() -> int:
    """Point stdout at /dev/null so the interpreter's final flush does not complain again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout without a file descriptor (captured in tests)
        pass
    return EXIT_BROKEN_PIPE


def debug_mode() -> bool:
    """``CUEGYM_DEBUG`` is set (not empty, not 0): errors show their traceback."""
    return os.environ.get("CUEGYM_DEBUG", "") not in ("", "0")


def run_cli(main: Callable[..., int | None], argv: list[str] | None = None) -> int:
    """Run ``main(argv)``; user mistakes become one line on stderr and exit status 2."""
    debug = debug_mode()
    try:
        code = main(argv)
        sys.stdout.flush()
        return 0 if code is None else int(code)
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:
        msg = None if debug else one_line(exc)
        if msg is None:
            raise
        print("error: " + " ".join(msg.split()), file=sys.stderr)
        return EXIT_USAGE


def cli_main(main: Callable[..., int | None]) -> Callable[[list[str] | None], int]:
    """Decorator for a command's ``main(argv=None)``: see :func:`run_cli`."""

    @functools.wraps(main)
    def wrapped(argv: list[str] | None = None) -> int:
        return run_cli(main, argv)

    wrapped.__wrapped__ = main
    return wrapped


def write_atomic(path: str | Path, text: str) -> None:
    """``text`` to ``path`` under a temporary name in the same folder, then renamed: an
    interrupted run leaves the old file or the new one, never half of one (a damaged cache or
    report would fail every later run that reads it)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
