"""When a batched kernel runs on numba's thread pool and when on the calling thread.

The one place that decides it, for the physics (``simulate``) and the golfbillard referee.
"""

from __future__ import annotations

import os
from typing import Any

import numba
import numpy as np

_IMPORT_PID = os.getpid()


def pool_unusable() -> bool:
    """True in a process forked after its parent started numba's GNU OpenMP pool: there the
    pool aborts the whole process on first use ("fork() called from a process already using
    GNU OpenMP"), as in the workers of gymnasium's AsyncVectorEnv, which fork on Linux."""
    if os.getpid() == _IMPORT_PID:
        return False
    try:
        return numba.threading_layer() == "omp"
    except ValueError:  # no pool was started before the fork
        return False


def check_threads(threads: Any) -> int | None:
    """``threads`` (numba threads for a batched kernel) as None or an int >= 1.

    Raises:
        ValueError: anything else (2.5 was silently 2, "4" a TypeError deep inside).
    """
    if threads is None:
        return None
    if isinstance(threads, bool) or not isinstance(threads, int | np.integer) or threads < 1:
        raise ValueError(f"threads must be None or an integer >= 1, got {threads!r}")
    return int(threads)


def run_serially(n_tables: int, threads: int) -> bool:
    """Whether ``n_tables`` tables should run on the calling thread: one thread asked for, a
    batch too small to pay for the pool (fewer than 2 tables a thread), or a forked process
    that cannot use the pool (:func:`pool_unusable`)."""
    return threads == 1 or n_tables < 2 * threads or pool_unusable()
