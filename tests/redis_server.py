"""A real Redis server for the job-queue tests (Debian's `redis-server`), on a free port of 127.0.0.1.

Where it is missing the tests skip with the reason, unless BGSCRIBE_REQUIRE_REDIS=1 (CI), where they fail.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.capture.helpers import free_port


def redis_binary() -> str:
    path = shutil.which("redis-server") or ("/usr/bin/redis-server" if os.path.exists("/usr/bin/redis-server")
                                            else None)
    if path is None:
        reason = "redis-server is not installed (apt install redis-server)"
        if os.environ.get("BGSCRIBE_REQUIRE_REDIS") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@contextmanager
def redis_server(folder: Path):
    """A Redis server with its append-only file in `folder` (as a venue runs it: a queue that survives a restart);
    yields its URL."""
    folder.mkdir(parents=True, exist_ok=True)
    port = free_port()
    proc = subprocess.Popen([redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                             "--appendonly", "yes", "--save", "", "--protected-mode", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 10
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"redis-server did not start (exit status {proc.poll()})")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def redis_url(tmp_path):
    with redis_server(tmp_path / "redis") as url:
        yield url
