"""When a batched kernel runs on numba's thread pool and when on the calling thread.

The one place that decides it, for the physics (``simulate``) and the golfbillard referee.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numba
import numpy as np

_IMPORT_PID = os.getpid()
#: numba's thread pools that several Python threads may launch kernels on at once.
_THREADSAFE_LAYERS = ("omp", "tbb")
#: Held by the one thread on the pool while the layer may be numba's ``workqueue``.
_POOL_LOCK = threading.Lock()


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


#: Fewest tables for which one thread asked for runs the pool's kernel (on one of its threads)
#: rather than the serial one: numba compiles the same per-table loop 1.35-1.5x faster as the
#: body of a ``prange`` (keglebillard batch 1024 on one core: 80,000 against 59,000 shots per
#: CPU-second, golfbillard 45,000 against 29,000), while a single table pays the launch
#: (about 5 % at batch 1).
POOL_MIN_TABLES_ONE_THREAD = 4


def run_serially(n_tables: int, threads: int) -> bool:
    """Whether ``n_tables`` tables should run on the calling thread: a batch too small to pay
    for the pool (fewer than 2 tables a thread; one thread: fewer than
    :data:`POOL_MIN_TABLES_ONE_THREAD`), or a forked process that cannot use the pool
    (:func:`pool_unusable`)."""
    if threads == 1:
        return n_tables < POOL_MIN_TABLES_ONE_THREAD or pool_unusable()
    return n_tables < 2 * threads or pool_unusable()


def _layer_threadsafe() -> bool:
    """Whether numba's pool is one that threads may share (GNU OpenMP or TBB). Before the pool
    has started its layer is not known, so the answer is False until then."""
    try:
        return numba.threading_layer() in _THREADSAFE_LAYERS
    except ValueError:
        return False


@contextmanager
def pool_turn(n_tables: int, threads: int) -> Iterator[bool]:
    """Whether a batched kernel of ``n_tables`` tables runs on numba's pool (True) or on the
    calling thread (False), held for the kernel's run.

    False where :func:`run_serially` says so, and also while another Python thread is on the
    pool and the pool is numba's ``workqueue`` layer (chosen where neither OpenMP nor TBB is
    installed): that layer aborts the whole process when two threads launch kernels at once
    (the web table serves games on a thread pool; users call ``simulate`` from threads), so
    the second thread plays its tables itself instead of waiting.
    """
    if run_serially(n_tables, threads):
        yield False
    elif _layer_threadsafe():
        yield True
    elif not _POOL_LOCK.acquire(blocking=False):
        yield False
    else:
        try:
            yield True
        finally:
            _POOL_LOCK.release()
