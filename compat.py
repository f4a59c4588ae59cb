"""Names kept importable from the module they moved out of (when a file was split in two).

A module whose code moved to a new module that imports it back cannot re-export the moved
names at import time (a cycle); :func:`moved_names` gives it a module-level ``__getattr__``
that imports them from the new module on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def moved_names(module: str, target: str, names: tuple[str, ...]) -> Callable[[str], Any]:
    """A module ``__getattr__`` for ``module`` (its ``__name__``): the ``names`` that moved to
    ``target`` (a module path) are read from it; any other name is an AttributeError, as for a
    module without one."""
    moved = frozenset(names)

    def __getattr__(name: str) -> Any:
        if name in moved:
            return getattr(importlib.import_module(target), name)
        raise AttributeError(f"module {module!r} has no attribute {name!r}")

    return __getattr__
