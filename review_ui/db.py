"""Database engine, sessions, and migrations (alembic, applied at start-up).

Two backends, both tested: SQLite (the embedded default, a file in the data folder) and PostgreSQL
(`postgresql://user@host/db`, through psycopg 3). Times are stored as naive UTC on both.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, event, exc
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"


class DatabaseUnavailable(Exception):
    """The server cannot open its database (unreachable, refused, no driver): one line for the operator."""


def normalise_url(url: str) -> str:
    """A plain `postgresql://` URL (what staff write) means psycopg 3, the driver of `bgscribe[postgres]`."""
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            return "postgresql+psycopg://" + url.removeprefix(plain)
    return url


def shown_url(url: str) -> str:
    """The URL for logs and errors: never the password."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return "(unparseable URL)"


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(conn, _record):
            cur = conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA synchronous=FULL")
            cur.close()

        return engine
    try:
        # The session's time zone is UTC so that anything the server computes (now(), casts) agrees with the
        # naive UTC times it stores.
        return create_engine(url, pool_pre_ping=True, connect_args={"options": "-c timezone=UTC"}
                             if url.startswith("postgresql") else {})
    except (ModuleNotFoundError, exc.NoSuchModuleError, exc.ArgumentError) as e:
        hint = " (pip install 'bgscribe[postgres]')" if url.startswith("postgresql") else ""
        raise DatabaseUnavailable(f"cannot open the database {shown_url(url)}: {e}{hint}") from e


def alembic_config(url: str):
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def migrate(engine: Engine) -> None:
    """Bring the database schema up to date (creates it on first start)."""
    from alembic import command

    cfg = alembic_config(str(engine.url.render_as_string(hide_password=False)))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "head")


def schema_behind(engine: Engine) -> str:
    """Why this code cannot work on the database's schema ("" when it can): a worker does not migrate (the
    server does), so it checks that the server's bgscribe and its own agree."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config(str(engine.url))).get_current_head()
    with engine.connect() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
    if current == head:
        return ""
    if current is None:
        return "the database has no bgscribe schema: start the server on it first (`bgscribe serve` migrates it)"
    return (f"the database's schema is at migration {current}, this bgscribe knows {head}: run the same bgscribe "
            "version as the server")


def _reason(e: exc.DBAPIError) -> str:
    """The driver's own words, first line: "connection refused", "database ... does not exist", ..."""
    return str(e.orig).strip().splitlines()[0] if e.orig else str(e).splitlines()[0]


class Database:
    def __init__(self, url: str, run_migrations: bool = True):
        self.engine = make_engine(url)
        try:
            with self.engine.connect():
                pass
        except exc.OperationalError as e:
            self.engine.dispose()
            raise DatabaseUnavailable(f"cannot open the database {shown_url(url)}: {_reason(e)}") from e
        if run_migrations:
            try:
                migrate(self.engine)
            except exc.DBAPIError as e:  # e.g. PostgreSQL 15+: "permission denied for schema public"
                self.engine.dispose()
                raise DatabaseUnavailable(f"cannot migrate the database {shown_url(url)}: {_reason(e)}") from e
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def session(self) -> Session:
        return self.sessions()

    def get_session(self) -> Iterator[Session]:
        with self.sessions() as s:
            yield s

    def dispose(self) -> None:
        self.engine.dispose()
