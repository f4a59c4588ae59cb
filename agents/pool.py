"""Process pools for the simulating teachers (``experiments/expert_iteration.py``,
``experiments/train_aim.py``).

``spawn`` processes, because the parent holds torch and numba threads that a fork would copy
in an undefined state. Each worker watches its parent and exits when the parent is gone: a
labelling task runs for many minutes, and a parent killed without its process group (``kill
<pid>`` rather than Ctrl-C) would otherwise leave its workers computing labels nobody reads.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from typing import Any


def _exit_with_parent(parent: int, period: float) -> None:
    """Worker initializer: a daemon thread that ends the process once ``parent`` is gone
    (the worker is then re-parented, so ``os.getppid()`` changes)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(period)
        os._exit(1)  # no cleanup to run: the parent that would read the results is gone

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def label_pool(workers: int, period: float = 1.0) -> Any:
    """A ``ProcessPoolExecutor`` of ``workers`` spawned processes that exit with this one
    (checked every ``period`` seconds), or a context that yields None for one worker (the
    caller then runs the work in-process)."""
    import math
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from cuegym.cli_errors import check_int

    workers = check_int("workers", workers)  # 0 or -1 ran in-process, 2.5 failed in a lock
    if isinstance(period, bool) or not isinstance(period, int | float) or \
            not (math.isfinite(period) and period > 0):  # 0 spun a core, nan killed the watch
        raise ValueError(f"period must be a finite number of seconds > 0, got {period!r}")
    if workers <= 1:
        return contextlib.nullcontext(None)
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_exit_with_parent, initargs=(os.getpid(), period))


def shares(total: int, workers: int) -> list[int]:
    """``total`` items (games) split between ``workers`` as evenly as possible, the first
    ``total % workers`` workers taking one more."""
    from cuegym.cli_errors import check_int

    total = check_int("total", total, 0)  # 0 workers shared 5 games as [], losing them
    workers = check_int("workers", workers)
    return [total // workers + (k < total % workers) for k in range(workers)]


__all__ = ["label_pool", "shares"]
