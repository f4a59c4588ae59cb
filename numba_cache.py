"""Where numba caches the package's kernels, and dropping them when an edit made them stale.

numba caches a ``cache=True`` kernel in the ``__pycache__`` beside its source, else in the
user-wide cache (``~/.cache/numba``), or in ``NUMBA_CACHE_DIR`` when that is set; with none of
them writable it refuses to compile at all. :func:`ensure_cache_location` runs at ``import
cuegym``: on an install nobody may write to (a system or container image) with no writable
home either, it points numba at a folder in the temp directory.

numba checks a cached kernel only against its own source file, so after an edit to a jitted
helper in another file its callers would keep the old machine code (and, say, the old rule).
:func:`drop_stale_caches` runs at ``import cuegym`` too: if a kernel source of the package (a
file that uses ``njit``) is newer than the oldest cached kernel, every cached kernel of the
package is deleted and compiles again on first use. A fresh clone has no cache; nothing happens.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import tempfile
import time
from pathlib import Path

from cuegym.cli_errors import user_cache_dir

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


def _subpath(folder: Path) -> str:
    """The folder numba keeps a source folder's caches in, under a cache root: the folder's
    name and the SHA-1 of its absolute path (numba's ``get_suitable_cache_subpath``)."""
    path = os.path.abspath(folder)
    return f"{os.path.split(path)[-1]}_{hashlib.sha1(path.encode()).hexdigest()}"


def _cache_dirs(sources: list[Path]) -> set[Path]:
    """Where numba may keep the caches of ``sources``: ``__pycache__`` beside them, their
    folders under ``NUMBA_CACHE_DIR`` when it is set, else under the user-wide cache."""
    root = os.environ.get("NUMBA_CACHE_DIR")
    root_dir = Path(root) if root else user_cache_dir("numba")
    dirs = set()
    for p in sources:
        dirs.add(p.parent / "__pycache__")
        dirs.add(root_dir / _subpath(p.parent))
    return dirs


def _writable(folder: Path) -> bool:
    """Whether numba could cache in ``folder`` (its own test: create it, write a temp file)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
        return True
    except OSError:
        return False


def _own_private(folder: Path) -> bool:
    """Whether ``folder`` is this user's alone, made now (mode 0o700) or found so: owned by
    this user, no symbolic link, not writable by group or others. numba unpickles the index
    files it finds in its cache folder, so a shared temp folder that another user made first
    would run that user's code in every cuegym process."""
    if not hasattr(os, "getuid"):  # no POSIX owners: the per-process name is new
        return True
    try:
        folder.mkdir(mode=0o700, parents=True)
    except FileExistsError:
        pass
    except OSError:
        return False
    try:
        st = folder.lstat()
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
            and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def ensure_cache_location(root: str | Path | None = None) -> Path | None:
    """Make sure numba has somewhere to cache the package's kernels; the folder chosen, or
    None when numba's own places do (``NUMBA_CACHE_DIR`` set, the package's ``__pycache__``
    or the user-wide cache writable). Otherwise ``NUMBA_CACHE_DIR`` is set, for this process
    and the workers it starts, to ``<temp>/cuegym-numba-<user>`` (mode 0o700; one that is
    not this user's alone is passed over for a new private folder); if that is not writable
    either, numba compiles and numba's own error says why."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return None
    root = Path(root) if root is not None else Path(__file__).resolve().parent
    if _writable(root / "physics" / "__pycache__") or _writable(user_cache_dir("numba")):
        return None
    user = os.getuid() if hasattr(os, "getuid") else os.getpid()
    folder = Path(tempfile.gettempdir()) / f"cuegym-numba-{user}"
    if not _own_private(folder):  # another user's (numba unpickles what it finds there)
        try:
            folder = Path(tempfile.mkdtemp(prefix="cuegym-numba-"))
        except OSError:
            return None
    if not _writable(folder):
        return None
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # read at numba's import; already imported, set it there too
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    return folder


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
