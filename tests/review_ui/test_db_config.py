"""Migrations build the schema the models describe; settings come from TOML, env and arguments."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, make_url, text

from review_ui.config import load_settings
from review_ui.db import Database, DatabaseUnavailable
from review_ui.models import Base
from review_ui.storage import LocalStore, StoreError


def test_migrations_match_the_models(tmp_path, database_url):
    """Every migration, up from an empty database, on each backend: the schema is the models' (tables, columns,
    types, nullability, indexes, unique and foreign keys)."""
    url = database_url or f"sqlite:///{tmp_path / 'x.db'}"
    db = Database(url)
    with db.engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) >= set(Base.metadata.tables) | {"alembic_version"}
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata)
    assert diff == []
    Database(url).dispose()  # a second start migrates nothing and works
    db.dispose()


@pytest.mark.postgresql
def test_a_plain_postgresql_url_means_psycopg(postgres_databases):
    with postgres_databases.fresh() as url:
        plain = url.replace("postgresql+psycopg://", "postgresql://")
        db = Database(plain)
        assert db.engine.url.drivername == "postgresql+psycopg"
        with db.session() as s:
            assert s.scalar(text("SELECT count(*) FROM alembic_version")) == 1
        db.dispose()
        missing = make_url(url).set(database="no_such_database").render_as_string(hide_password=False)
        with pytest.raises(DatabaseUnavailable, match='cannot open the database .*"no_such_database" does not exist'):
            Database(missing)
        # A user who may connect but not create tables (PostgreSQL 15: not in another owner's schema public)
        role = f"visitor_{os.getpid()}"
        with postgres_databases.admin.connect() as c:
            c.execute(text(f"CREATE ROLE {role} LOGIN"))
        try:
            with pytest.raises(DatabaseUnavailable, match="cannot migrate the database .*permission denied"):
                Database(make_url(url).set(username=role).render_as_string(hide_password=False))
        finally:
            with postgres_databases.admin.connect() as c:
                c.execute(text(f"DROP ROLE {role}"))


def test_a_database_the_server_cannot_reach_is_one_line_not_a_traceback(tmp_path):
    url = "postgresql://staff:pw-s3cret@127.0.0.1:1/bgscribe"  # port 1: nothing listens there
    with pytest.raises(DatabaseUnavailable, match=r"cannot open the database postgresql://staff:\*\*\*@127"):
        Database(url)
    env = {**os.environ, "BGSCRIBE_DATABASE_URL": url}
    r = subprocess.run([sys.executable, "-m", "bgscribe", "serve", "--data", str(tmp_path / "d"), "--port", "1"],
                       capture_output=True, text=True, env=env, timeout=60)
    lines = [ln for ln in r.stderr.splitlines() if "cannot open the database" in ln]
    assert r.returncode == 2 and "Traceback" not in r.stderr and "pw-s3cret" not in r.stderr, r.stderr
    assert len(lines) == 1 and lines[0].startswith("bgscribe serve: cannot open the database "), r.stderr
    assert "127.0.0.1" in lines[0] and "refused" in lines[0].lower(), lines[0]


def test_settings_precedence(tmp_path, monkeypatch):
    toml = tmp_path / "bgscribe.toml"
    toml.write_text('admin_token = "from-toml"\nport = 9000\npurge_interval_seconds = 60\n')
    monkeypatch.setenv("BGSCRIBE_PORT", "9100")
    s = load_settings(toml, data_dir=tmp_path / "d")
    assert (s.admin_token, s.port, s.purge_interval_seconds) == ("from-toml", 9100, 60)
    assert s.db_url == f"sqlite:///{(tmp_path / 'd' / 'bgscribe.db').resolve()}"
    assert s.footage_path == tmp_path / "d" / "footage"
    with pytest.raises(FileNotFoundError):
        load_settings(tmp_path / "missing.toml")


def test_local_store_refuses_bad_keys_and_bad_copies(tmp_path):
    store = LocalStore(tmp_path / "footage")
    src = tmp_path / "a.mp4"
    src.write_bytes(b"abc")
    with pytest.raises(StoreError):
        store.put("../outside.mp4", src, "0" * 64)
    with pytest.raises(StoreError):
        store.put("board01/a.mp4", src, "0" * 64)  # wrong checksum: nothing stored
    assert list(store.keys()) == []
    import hashlib

    store.put("board01/2026-11-29/a.mp4", src, hashlib.sha256(b"abc").hexdigest())
    assert list(store.keys()) == ["board01/2026-11-29/a.mp4"] and store.exists("board01/2026-11-29/a.mp4")
    store.delete("board01/2026-11-29/a.mp4")
    assert not store.exists("board01/2026-11-29/a.mp4") and not (tmp_path / "footage" / "board01").exists()
