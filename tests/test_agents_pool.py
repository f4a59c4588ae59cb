"""The teachers' process pool (cuegym.agents.pool): spawned workers that exit with their
parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from cuegym.agents.pool import label_pool

PARENT = """
import sys, time
from cuegym.agents.pool import label_pool
pool = label_pool(2, period=0.1)
futures = [pool.submit(time.sleep, 120) for _ in range(2)]
while len(pool._processes) < 2:
    time.sleep(0.05)
time.sleep(1.0)
print(*pool._processes, flush=True)
time.sleep(120)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie (exited, not yet reaped by its new parent) counts as gone
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


def test_one_worker_is_no_pool():
    with label_pool(1) as pool:
        assert pool is None


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_workers_exit_when_the_parent_is_killed():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    try:
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        parent.send_signal(signal.SIGKILL)  # no chance to shut the pool down
        parent.wait()
        deadline = time.time() + 20
        while any(_alive(p) for p in pids) and time.time() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in pids), "workers outlived their parent"
    finally:
        parent.kill()
        for p in pids if "pids" in locals() else []:
            if _alive(p):
                os.kill(p, signal.SIGKILL)
