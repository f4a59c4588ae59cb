"""Packaging and install, sixth outside audit: numba's temp cache folder must be this user's
alone, and a used checkout's generated bank and compiled kernels stay out of the wheel and the
sdist. Each test failed on the code before its fix."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from cuegym import numba_cache

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
def test_world_writable_temp_cache_folder_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)  # restored after
    shared_tmp = tmp_path / "tmp"
    shared_tmp.mkdir()
    monkeypatch.setattr(numba_cache.tempfile, "gettempdir", lambda: str(shared_tmp))
    # a read-only install and no writable home: only the temp folder is left
    real_writable = numba_cache._writable
    monkeypatch.setattr(numba_cache, "_writable",
                        lambda folder: str(folder).startswith(str(shared_tmp))
                        and real_writable(folder))
    planted = shared_tmp / f"cuegym-numba-{os.getuid()}"
    planted.mkdir()
    planted.chmod(0o777)  # as another user would leave it for us
    try:
        chosen = numba_cache.ensure_cache_location(tmp_path / "pkg")
        if chosen is not None:
            mode = chosen.stat().st_mode
            assert chosen.stat().st_uid == os.getuid()
            assert not mode & (stat.S_IWGRP | stat.S_IWOTH), oct(mode)
    finally:
        os.environ.pop("NUMBA_CACHE_DIR", None)


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                    reason="needs a git checkout")
def test_generated_bank_and_numba_caches_stay_out_of_the_dists(tmp_path):
    src = tmp_path / "cuegym"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(src)], check=True)
    for name in ("MANIFEST.in", "pyproject.toml"):  # an uncommitted change is what is tested
        shutil.copyfile(ROOT / name, src / name)
    # what `make test` leaves in a checkout
    shutil.copyfile(src / "envs" / "data" / "keglebillard_positions.npz",
                    src / "envs" / "data" / "keglebillard-helmatch_positions.npz")
    for folder in ("tests/reference/__pycache__", "physics/__pycache__", "tests/__pycache__"):
        (src / folder).mkdir(parents=True, exist_ok=True)
        (src / folder / "k._f-1.py311.nbi").write_bytes(b"x")
        (src / folder / "k._f-1.py311.1.nbc").write_bytes(b"x")
    dist = tmp_path / "dist"
    dist.mkdir()
    for fn in ("build_sdist", "build_wheel"):  # one process each
        subprocess.run([sys.executable, "-c", "import setuptools.build_meta as b, sys; "
                        f"b.{fn}(sys.argv[1])", str(dist)], cwd=src, check=True,
                       capture_output=True, text=True)
    (sdist,) = dist.glob("*.tar.gz")
    (wheel,) = dist.glob("*.whl")
    with tarfile.open(sdist) as tar:
        in_sdist = tar.getnames()
    in_wheel = zipfile.ZipFile(wheel).namelist()
    for names in (in_sdist, in_wheel):
        bad = [n for n in names if n.endswith(("helmatch_positions.npz", ".nbi", ".nbc"))]
        assert not bad, bad
