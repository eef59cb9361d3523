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
