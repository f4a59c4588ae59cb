"""numba_cache.drop_stale_caches: an edited kernel source drops the package's cached kernels."""

from __future__ import annotations

import os

import pytest

from cuegym.numba_cache import drop_stale_caches


def _tree(tmp_path, cache_dir=None):
    (tmp_path / "rules").mkdir()
    kernel = tmp_path / "rules" / "kern.py"
    kernel.write_text("import numba as nb\n\n@nb.njit(cache=True)\ndef f(x):\n    return x\n")
    plain = tmp_path / "rules" / "plain.py"
    plain.write_text("X = 1\n")
    pyc = (cache_dir or tmp_path / "rules" / "__pycache__")
    pyc.mkdir(parents=True)
    files = [pyc / "kern.f-3.py311.nbi", pyc / "kern.f-3.py311.1.nbc", pyc / "other.g-1.nbc"]
    for f in files:
        f.write_bytes(b"x")
    return kernel, plain, files


def _age(path, seconds):
    t = os.stat(path).st_mtime - seconds
    os.utime(path, (t, t))


@pytest.fixture(autouse=True)
def _default_cache_location(monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)


def test_a_kernel_edited_after_the_cache_drops_it_all(tmp_path):
    kernel, _, files = _tree(tmp_path)
    for f in files:
        _age(f, 100)
    assert drop_stale_caches(tmp_path) == 3
    assert not any(f.exists() for f in files) and kernel.exists()
    assert drop_stale_caches(tmp_path) == 0  # nothing left to drop


def test_a_current_cache_or_an_edit_without_kernels_keeps_it(tmp_path):
    kernel, plain, files = _tree(tmp_path)
    _age(kernel, 100)
    _age(plain, 100)
    assert drop_stale_caches(tmp_path) == 0  # the cache is newer than every source
    for f in files:
        _age(f, 50)  # the cache 50 s old, the kernel source 100 s
    os.utime(plain)  # only a file without kernels changed since
    assert drop_stale_caches(tmp_path) == 0 and all(f.exists() for f in files)


def test_a_source_dated_in_the_future_does_not_drop_it(tmp_path):
    kernel, _, files = _tree(tmp_path)
    t = os.stat(kernel).st_mtime + 3600
    os.utime(kernel, (t, t))
    assert drop_stale_caches(tmp_path) == 0


def test_numba_cache_dir_is_honoured(tmp_path, monkeypatch):
    user = tmp_path / "nbcache"
    root = tmp_path / "pkg"
    root.mkdir()
    mirror = user / os.path.abspath(root / "rules").lstrip(os.sep)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(user))
    _, _, files = _tree(root, cache_dir=mirror)
    for f in files:
        _age(f, 100)
    assert drop_stale_caches(root) == 3
