"""`bgscribe adduser` creates a working login; bad input gets a message, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

from fastapi.testclient import TestClient

from review_ui.app import create_app
from review_ui.config import Settings


def run(*args: str, password: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "BGSCRIBE_PASSWORD": password}
    return subprocess.run([sys.executable, "-m", "bgscribe", "adduser", *args], capture_output=True, text=True,
                          env=env, timeout=60)


def test_adduser_then_login(tmp_path, database_url):
    data = tmp_path / "data"
    r = run("dora", "--role", "director", "--data", str(data), password="director pw 1")
    assert r.returncode == 0 and "created director dora" in r.stdout
    r = run("dora", "--data", str(data), password="director pw 1")
    assert r.returncode == 2 and "exists already" in r.stderr and "Traceback" not in r.stderr
    r = run("eve", "--data", str(data), password="short")
    assert r.returncode == 2 and "at least 12 characters" in r.stderr
    with TestClient(create_app(Settings(data_dir=data, database_url=database_url, purge_interval_seconds=0))) as c:
        r = c.post("/api/v1/login", json={"username": "dora", "password": "director pw 1"})
        assert r.status_code == 200 and r.json()["role"] == "director"
