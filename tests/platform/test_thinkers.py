"""The server's thinking processes end with it, however it ends (``app.thinkers``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SERVER = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from app.thinkers import start_worker

if __name__ == "__main__":
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=start_worker, initargs=(5,))
    print(pool.submit(os.getpid).result(), pool.submit(os.nice, 0).result(), flush=True)
    time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"


def test_a_worker_is_niced_and_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    """A review's worker outlived every benchmark server that was stopped while it thought: it waited
    for its next task for ever."""
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    root = Path(__file__).resolve().parents[2]
    server = subprocess.Popen(
        [sys.executable, str(script)],
        cwd=root,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert server.stdout is not None
    worker, niceness = (int(word) for word in server.stdout.readline().split())
    assert niceness == min(19, os.nice(0) + 5) and _alive(worker)
    server.send_signal(signal.SIGKILL)
    server.wait()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(worker)
