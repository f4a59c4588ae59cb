"""Drop numba's cached kernels when an edited kernel source has made them stale.

numba checks a cached kernel only against its own source file, so after an edit to a jitted
helper in another file its callers would keep the old machine code (and, say, the old rule).
:func:`drop_stale_caches` runs at ``import cuegym``: if a kernel source of the package (a file
that uses ``njit``) is newer than the oldest cached kernel, every cached kernel of the package
is deleted and compiles again on first use. A fresh clone has no cache; nothing happens.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

_SKIP = {".git", ".venv", "runs", "node_modules", "__pycache__", ".pytest_cache"}


def _sources(root: Path) -> list[Path]:
    """The package's ``.py`` files under ``root`` (not descending into ``.venv``, ``runs`` or
    hidden folders, which ``Path.rglob`` would walk in full)."""
    out, stack = [], [root]
    while stack:
        d = stack.pop()
        with os.scandir(d) as it:
            for e in it:
                if e.is_dir(follow_symlinks=False):
                    if e.name not in _SKIP and not e.name.startswith("."):
                        stack.append(Path(e.path))
                elif e.name.endswith(".py"):
                    out.append(Path(e.path))
    return out


def _cache_dirs(sources: list[Path]) -> set[Path]:
    """Where numba keeps the caches of ``sources``: ``__pycache__`` beside them, or the mirror
    of their folders under ``NUMBA_CACHE_DIR``."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    dirs = set()
    for p in sources:
        if user:
            rel = os.path.splitdrive(os.path.abspath(p.parent))[1].lstrip(os.sep)
            dirs.add(Path(user) / rel)
        else:
            dirs.add(p.parent / "__pycache__")
    return dirs


def drop_stale_caches(root: str | Path | None = None) -> int:
    """Delete the package's cached kernels (``*.nbi``, ``*.nbc``) if a kernel source is newer
    than the oldest of them; returns how many files were deleted (0: the cache is current)."""
    root = Path(root) if root is not None else Path(__file__).resolve().parent
    sources = _sources(root)
    caches = [f for d in _cache_dirs(sources) if d.is_dir()
              for f in d.iterdir() if f.suffix in (".nbi", ".nbc")]
    data = [f.stat().st_mtime for f in caches if f.suffix == ".nbc"]
    if not data:
        return 0
    oldest, now = min(data), time.time()
    # a source dated in the future (a skewed clock) would wipe the cache at every import
    newer = [p for p in sources if oldest < p.stat().st_mtime <= now]
    if not any("njit" in p.read_text(errors="ignore") for p in newer):
        return 0
    n = 0
    for f in caches:
        try:
            f.unlink()
            n += 1
        except FileNotFoundError:  # another process got there first
            pass
        except OSError:  # a read-only install: leave it
            break
    return n
