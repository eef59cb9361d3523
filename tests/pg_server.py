"""A real PostgreSQL server for the tests: started once per test session, one fresh database per test.

$BGSCRIBE_TEST_POSTGRES_URL (a user that may create databases, e.g. postgresql://postgres@127.0.0.1:5432/postgres)
uses that server instead of starting one. Without PostgreSQL's binaries the PostgreSQL variants skip, unless
$BGSCRIBE_REQUIRE_POSTGRES=1 (CI), where they fail.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from review_ui.db import normalise_url

# The database backends the server's tests run on (the fixture `database_url`, tests/conftest.py: the same tests,
# parametrised): SQLite, the embedded default, and PostgreSQL. `-m "not postgresql"` runs the SQLite half only.
BACKENDS = ["sqlite", pytest.param("postgresql", marks=pytest.mark.postgresql)]
# For the few end-to-end tests too slow to run twice whose database work other tests cover on both backends.
sqlite_only = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)

# Test data: durability off for speed.
FAST = ("-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off")


def _bin_dir() -> Path | None:
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    return Path(versions[-1]).parent if versions else None


class PgServer:
    """initdb + pg_ctl in a temporary folder, listening only on a unix socket there (never on port 5432)."""

    def __init__(self):
        self.bin = _bin_dir()
        if self.bin is None:
            raise FileNotFoundError("PostgreSQL's initdb not found (Debian: apt-get install postgresql)")
        self.root = Path(tempfile.mkdtemp(prefix="bgscribe-pg-"))
        self.data = self.root / "data"
        self.prefix: list[str] = []
        if os.getuid() == 0:  # postgres refuses to run as root: run it as Debian's unprivileged `postgres` user
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError as e:
                raise FileNotFoundError("running as root and no `postgres` user to run the server as") from e
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            self.prefix = ["setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups", "--"]
        # Collation of a language (ICU's en-US: "alice" < "Bob"), as a venue's server has, not C's byte order
        # (which is SQLite's): code that lets the database order text would show here.
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C",
                  "--locale-provider=icu", "--icu-locale=en-US", "--no-sync")
        opts = " ".join(["-k", str(self.root), "-c", "listen_addresses=''", *FAST])
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-o", opts, "-w", "start")
        self.url = f"postgresql+psycopg://postgres@/postgres?host={self.root}"

    def _run(self, tool: str, *args: str) -> None:
        r = subprocess.run([*self.prefix, str(self.bin / tool), *args], capture_output=True, text=True,
                           cwd=self.root, timeout=120)
        if r.returncode:
            log = self.root / "server.log"
            raise RuntimeError(f"{tool} failed ({r.returncode}): {r.stderr.strip() or r.stdout.strip()}"
                               + (f"\n{log.read_text()[-2000:]}" if log.exists() else ""))

    def stop(self) -> None:
        with contextlib.suppress(Exception):
            self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)


class Databases:
    """CREATE DATABASE per test on one server (the admin URL's), DROP after."""

    def __init__(self, admin_url: str):
        url = make_url(normalise_url(admin_url))
        self.admin_url = url
        self.admin = create_engine(url, isolation_level="AUTOCOMMIT")

    @contextlib.contextmanager
    def fresh(self):
        name = f"bgscribe_test_{uuid.uuid4().hex[:12]}"
        with self.admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield self.admin_url.set(database=name).render_as_string(hide_password=False)
        finally:
            with self.admin.connect() as c:  # FORCE: a test's leftover connections do not keep it alive
                c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

    def dispose(self) -> None:
        self.admin.dispose()
