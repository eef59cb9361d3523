"""Database engine, sessions, and migrations (alembic, applied at start-up)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

MIGRATIONS = Path(__file__).parent / "migrations"


def make_engine(url: str) -> Engine:
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
    return create_engine(url, pool_pre_ping=True)


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


class Database:
    def __init__(self, url: str, run_migrations: bool = True):
        self.engine = make_engine(url)
        if run_migrations:
            migrate(self.engine)
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)

    def session(self) -> Session:
        return self.sessions()

    def get_session(self) -> Iterator[Session]:
        with self.sessions() as s:
            yield s

    def dispose(self) -> None:
        self.engine.dispose()
