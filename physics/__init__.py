"""cuegym.physics: a batched, event-based billiards simulator (numba), no gymnasium or torch.

Main entry points:

- :func:`simulate` — T tables in one compiled call (``prange`` over tables), returning a
  :class:`SimResult` with final states and per-table event logs.
- :func:`simulate_json` — the JSON shot interface (also ``python -m cuegym.physics simulate``).
- :mod:`cuegym.physics.path` — closed-form ball positions at any time from a result.

Units: metres, seconds, kilograms, degrees at the API. See docs/physics.md for the models and
conventions, docs/physics_api.md for the arrays.
"""

import hashlib as _hashlib
from pathlib import Path as _Path


def _kernel_sources(here: _Path) -> list[_Path]:
    """The modules of ``here`` that define compiled kernels (their text names ``njit``): an edit
    to a plain Python module (the API's checks, the JSON reader) leaves the cache valid."""
    return [p for p in sorted(here.glob("*.py")) if b"njit" in p.read_bytes()]


def _drop_stale_numba_cache() -> None:
    """numba's on-disk cache (cache=True) is keyed on each function's own file only, so a kernel
    that calls into a changed module would load stale machine code. Drop this package's cache
    whenever any of its kernel sources changed."""
    here = _Path(__file__).resolve().parent
    digest = _hashlib.sha1(b"".join(p.read_bytes() for p in _kernel_sources(here)))
    cache = here / "__pycache__"
    stamp = cache / "numba_sources.sha1"
    try:
        if stamp.exists() and stamp.read_text() == digest.hexdigest():
            return
        cache.mkdir(exist_ok=True)
        for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
            f.unlink(missing_ok=True)
        stamp.write_text(digest.hexdigest())
    except OSError:  # read-only install: numba caches elsewhere (cuegym.numba_cache)
        pass


_drop_stale_numba_cache()

from .api import (  # noqa: E402
    GAME_MODELS,
    Models,
    PhysicsInputError,
    SimResult,
    Workspace,
    simulate,
)
from .constants import EVENT_NAMES, MOTION_NAMES  # noqa: E402

__all__ = ["GAME_MODELS", "Models", "PhysicsInputError", "SimResult", "Workspace", "simulate",
           "simulate_json", "EVENT_NAMES", "MOTION_NAMES"]


def __getattr__(name):
    if name == "simulate_json":
        from .jsonio import simulate_json

        return simulate_json
    raise AttributeError(name)
