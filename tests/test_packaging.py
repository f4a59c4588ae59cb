"""The source distribution is the checkout's tracked tree (MANIFEST.in): a user who unpacks it
can run ``make test``, with the tests' fixtures, the docs the README links to and the CI script."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None,
                                reason="needs a git checkout (its tracked files are the measure)")


def test_sdist_holds_every_tracked_file(tmp_path):
    # a clean copy of the tracked tree, so the checkout's build files are neither read nor made
    src = tmp_path / "src"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(src)], check=True)
    # the working tree's MANIFEST.in and pyproject.toml, so an uncommitted change is what is tested
    for name in ("MANIFEST.in", "pyproject.toml"):
        if (ROOT / name).exists():
            shutil.copyfile(ROOT / name, src / name)
    out = subprocess.run(
        [sys.executable, "-c", "import setuptools.build_meta as b, sys; "
         "print(b.build_sdist(sys.argv[1]))", str(tmp_path)],
        cwd=src, capture_output=True, text=True, check=True)
    sdist = tmp_path / out.stdout.split()[-1]
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    tracked = subprocess.run(["git", "ls-files"], cwd=src, capture_output=True, text=True,
                             check=True).stdout.split()
    missing = sorted(set(tracked) - names - {".gitignore"})
    assert not missing, f"the sdist lacks {len(missing)} tracked file(s): {missing[:10]}"
    assert "warning: no previously-included" not in out.stderr
    assert not [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".nbi", ".nbc"))]
