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
    """numba keeps a folder's caches under NUMBA_CACHE_DIR as <name>_<sha1 of its path> (the
    cleanup had looked for a mirror of the path, which numba never makes)."""
    from numba.core.caching import UserProvidedCacheLocator

    user = tmp_path / "nbcache"
    root = tmp_path / "pkg"
    root.mkdir()
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(user))
    sub = UserProvidedCacheLocator.get_suitable_cache_subpath(str(root / "rules" / "kern.py"))
    _, _, files = _tree(root, cache_dir=user / sub)
    for f in files:
        _age(f, 100)
    assert drop_stale_caches(root) == 3


def test_a_read_only_install_without_a_writable_home_caches_in_a_temp_folder(tmp_path,
                                                                             monkeypatch):
    """numba refused to compile ('no locator available') when neither the package's
    __pycache__ nor the user-wide cache could be written."""
    import numba

    from cuegym import numba_cache

    pkg = tmp_path / "pkg"
    (pkg / "physics").mkdir(parents=True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")  # both restored after the test
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)
    with monkeypatch.context() as m:
        m.setattr(numba_cache, "_writable",
                  lambda d: not (str(d).startswith(str(pkg)) or d.name == "numba"))
        m.setattr(numba_cache.tempfile, "gettempdir", lambda: str(tmp_path / "tmp"))
        folder = numba_cache.ensure_cache_location(pkg)
        assert folder is not None and folder.parent == tmp_path / "tmp"
        assert os.environ["NUMBA_CACHE_DIR"] == numba.config.CACHE_DIR == str(folder)
        assert numba_cache.ensure_cache_location(pkg) is None  # set: numba uses it now
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    # a writable package: numba's own place, nothing set
    assert numba_cache.ensure_cache_location(pkg) is None and not os.environ["NUMBA_CACHE_DIR"]


def test_an_unwritable_kernel_folder_and_home_still_compile(tmp_path):
    """The same for real, in a fresh process: a kernel in a read-only folder, HOME read-only."""
    import subprocess
    import sys

    if os.geteuid() == 0:
        pytest.skip("root writes to read-only folders")
    ro, home = tmp_path / "ro", tmp_path / "home"
    ro.mkdir()
    home.mkdir()
    (ro / "kern.py").write_text("import numba as nb\n\n@nb.njit(cache=True)\n"
                                "def f(x):\n    return x + 1\n")
    (ro / "physics").mkdir()
    ro.chmod(0o555)
    (ro / "physics").chmod(0o555)
    home.chmod(0o555)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from cuegym.numba_cache import ensure_cache_location as e; "
            "print(e(sys.argv[1])); import kern; print(kern.f(1))")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp_path))
    try:
        out = subprocess.run([sys.executable, "-c", code, str(ro)], env=env,
                             capture_output=True, text=True, timeout=300)
    finally:
        for d in (ro / "physics", ro, home):
            d.chmod(0o755)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == [str(tmp_path / f"cuegym-numba-{os.getuid()}"), "2"]


def test_physics_cache_stamp_covers_the_kernel_modules_only():
    """An edit to a plain module (the API's checks, the JSON reader) left every physics kernel
    to compile again (~100 s): the stamp hashed every physics/*.py."""
    from pathlib import Path

    import cuegym.physics as P

    names = {p.name for p in P._kernel_sources(Path(P.__file__).parent)}
    assert {"engine.py", "kiss.py", "motion.py", "resolve.py", "roots.py", "path.py",
            "predict.py", "layout.py"} <= names
    assert not names & {"api.py", "jsonio.py", "jsonparse.py", "checks.py", "scenarios.py",
                        "plot.py", "parallel.py"}
