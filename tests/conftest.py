from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.pg_server import BACKENDS

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "bgscribe" / "samples").glob("*.txt"))


@pytest.fixture(scope="session")
def sample_paths() -> list[Path]:
    assert len(SAMPLES) == 3, "the three real matches ship in bgscribe/samples"
    return SAMPLES


@pytest.fixture(scope="session")
def postgres_databases():
    """A PostgreSQL server for the session: $BGSCRIBE_TEST_POSTGRES_URL's, else one started here."""
    from tests.pg_server import Databases, PgServer

    server = None
    url = os.environ.get("BGSCRIBE_TEST_POSTGRES_URL")
    if not url:
        try:
            server = PgServer()
        except FileNotFoundError as e:
            if os.environ.get("BGSCRIBE_REQUIRE_POSTGRES") == "1":
                pytest.fail(f"BGSCRIBE_REQUIRE_POSTGRES=1 but no PostgreSQL server can be started: {e}")
            pytest.skip(f"PostgreSQL tests need PostgreSQL: {e}")
        url = server.url
    dbs = Databases(url)
    try:
        yield dbs
    finally:
        dbs.dispose()
        if server:
            server.stop()


@pytest.fixture(params=BACKENDS)
def database_url(request, monkeypatch) -> str:
    """The server's database URL for one test: "" (SQLite in the data folder) or a fresh PostgreSQL database.

    Also $BGSCRIBE_DATABASE_URL, so that the commands a test runs (`bgscribe event ... --data D`, in-process or
    as a child process) open the same database as its app."""
    if request.param == "sqlite":
        monkeypatch.delenv("BGSCRIBE_DATABASE_URL", raising=False)
        yield ""
        return
    with request.getfixturevalue("postgres_databases").fresh() as url:
        monkeypatch.setenv("BGSCRIBE_DATABASE_URL", url)
        yield url


# The slowest files first (2026-12-05, seconds on two cores): with `-n 3 --dist loadfile` (tests/run.sh) each worker
# takes the next file as it frees up, so a slow file collected last (tests/vision sorts last) ran alone at the end
# while the other workers idled. The rest keep their order.
SLOW_FIRST = ("tests/vision/test_fieldfind.py",  # 289
              "tests/vision/test_synth.py",  # 180
              "tests/transcriber/test_live.py",  # 175
              "tests/review_ui/test_pipeline.py",  # 165
              "tests/review_ui/test_desk_event.py",  # 155
              "tests/cli/test_demo.py",  # 150
              "tests/review_ui/test_review_api.py",  # 147
              "tests/vision/test_dicesize.py",  # 126
              "tests/review_ui/test_board_learning.py",  # 124
              "tests/hardware/test_check_camera_cli.py",  # 115
              "tests/review_ui/test_work_queue.py",  # 112
              "tests/capture/test_upload.py",  # 111
              "tests/capture/test_replay.py")  # 100


def pytest_collection_modifyitems(config, items):
    rank = {f: k for k, f in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
