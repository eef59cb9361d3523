"""Migrations build the schema the models describe; settings come from TOML, env and arguments."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from review_ui.config import load_settings
from review_ui.db import Database
from review_ui.models import Base
from review_ui.storage import LocalStore, StoreError


def test_migrations_match_the_models(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'x.db'}")
    with db.engine.connect() as conn:
        assert set(inspect(conn).get_table_names()) >= set(Base.metadata.tables) | {"alembic_version"}
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []
    Database(f"sqlite:///{tmp_path / 'x.db'}").dispose()  # a second start migrates nothing and works
    db.dispose()


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
