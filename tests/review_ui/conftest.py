from __future__ import annotations

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from review_ui.app import create_app
from review_ui.config import Settings
from review_ui.services import create_event, register_board

ADMIN = "staff-secret-for-tests"
TOKEN = "board-7-token-secret"


# argon2id as the server uses it, at a test's cost: the production parameters (~0.15 s a hash or a login, several
# per test) were half of these tests' time, which runs twice now (SQLite and PostgreSQL). The commands the tests
# run as child processes (`bgscribe adduser`, `serve`) hash at the real cost.
FAST_HASHER = PasswordHasher(time_cost=1, memory_cost=8192, parallelism=1)


@pytest.fixture(autouse=True)
def _test_cost_password_hashing(monkeypatch):
    monkeypatch.setattr("review_ui.auth._hasher", FAST_HASHER)


@pytest.fixture
def settings(tmp_path, database_url) -> Settings:
    """On each database backend in turn (tests/conftest.py: database_url)."""
    return Settings(data_dir=tmp_path / "data", database_url=database_url, admin_token=ADMIN,
                    purge_interval_seconds=0, pipeline=False)


@pytest.fixture
def client(settings):
    """The real app (real database, migrations, local footage store) through the ASGI test client."""
    app = create_app(settings)
    with TestClient(app) as c:
        with app.state.db.session() as s:
            ev = create_event(s, "EPC Leg 3")
            register_board(s, 7, TOKEN, ev)
            register_board(s, 8, "board-8-token-secret", ev)
            s.commit()
        c.app_state = app.state
        yield c


def auth(token: str = TOKEN) -> dict:
    return {"Authorization": f"Bearer {token}"}


STAFF = {"Authorization": f"Bearer {ADMIN}"}
