"""What the tests that start the browser table's server share: ``python -m cuegym.play`` in
its own process, its first line (the URL it prints), and its shutdown."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def play_server(save_dir: Path, *args: str) -> Iterator[str]:
    """Start the server on a free port (no warm-up, records under ``save_dir``; ``args`` more
    options, e.g. ``--host ::1``); yields the first line it prints, then stops it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    p = subprocess.Popen([sys.executable, "-m", "cuegym.play", *args, "--port", "0",
                          "--no-warmup", "--save-dir", str(save_dir)], stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, env=env)
    try:
        yield p.stdout.readline()
    finally:
        p.terminate()
        p.wait(20)
