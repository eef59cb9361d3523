"""The footage store's contract, the same tests for the local folder and the S3 store (against a real S3
server, SeaweedFS); what each does when it cannot do its job: a clear error, nothing lost or half-written."""

from __future__ import annotations

import hashlib
import signal
import subprocess
import time
import uuid
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from review_ui.app import create_app
from review_ui.config import Settings
from review_ui.db import Database
from review_ui.models import PurgeLog, Segment
from review_ui.retention import purge
from review_ui.services import create_event, create_match, register_board, update_match
from review_ui.storage import (
    MARKER,
    FootageNotFound,
    LocalStore,
    StoreError,
    server_store,
    sha256_file,
    worker_store,
)

from .conftest import ADMIN, TOKEN, seaweed_s3
from .test_ingest import make_segment, upload

KEY = "board07/2026-11-29/b07-20261129T170000123Z.mp4"


def blob(tmp_path, n: int = 100_000, seed: int = 0):
    data = hashlib.sha256(str(seed).encode()).digest() * (n // 32 + 1)
    p = tmp_path / f"src-{seed}-{n}.mp4"
    p.write_bytes(data[:n])
    return p, hashlib.sha256(data[:n]).hexdigest()


@pytest.fixture(params=["local", "s3"])
def store(request, tmp_path):
    if request.param == "local":
        return LocalStore(tmp_path / "footage")
    return request.getfixturevalue("s3_server").store(tmp_path / "cache", f"t-{uuid.uuid4().hex[:8]}")


def test_put_exists_open_delete_keys(store, tmp_path):
    src, sha = blob(tmp_path)
    assert not store.exists(KEY) and list(store.keys()) == []
    store.put(KEY, src, sha)
    other, osha = blob(tmp_path, 2_000, seed=1)
    store.put("board08/2026-11-29/x.mp4", other, osha)
    assert store.exists(KEY)
    assert list(store.keys()) == ["board07/2026-11-29/b07-20261129T170000123Z.mp4", "board08/2026-11-29/x.mp4"]
    assert list(store.keys("board08/")) == ["board08/2026-11-29/x.mp4"]
    with store.open(KEY) as f:  # seekable, as the footage API's ranges and the frame decoder need
        assert f.read() == src.read_bytes()
        f.seek(99_990)
        assert f.read(100) == src.read_bytes()[99_990:]
        f.seek(10)
        assert f.read(5) == src.read_bytes()[10:15]
    store.delete(KEY)
    store.delete(KEY)  # already gone: no error
    assert not store.exists(KEY) and list(store.keys()) == ["board08/2026-11-29/x.mp4"]
    with pytest.raises(FootageNotFound):
        store.open(KEY)


def test_a_checksum_mismatch_is_refused_and_nothing_is_stored(store, tmp_path):
    src, _ = blob(tmp_path)
    with pytest.raises(StoreError, match="sha256"):
        store.put(KEY, src, "0" * 64)
    assert not store.exists(KEY) and list(store.keys()) == []
    if isinstance(store, LocalStore):
        assert [p.name for p in store.root.rglob("*") if p.is_file()] == []  # no temporary file left either


def test_local_copy_is_a_readable_file_with_the_objects_bytes(store, tmp_path):
    src, sha = blob(tmp_path, 300_000)
    store.put(KEY, src, sha)
    with store.local_copy(KEY) as p:
        assert sha256_file(p) == sha
    with store.local_copy(KEY) as again:
        assert again == p  # (S3: the cached copy, not fetched twice)
    with pytest.raises(FootageNotFound), store.local_copy("board07/2026-11-29/none.mp4"):
        pass
    store.delete(KEY)
    assert not p.exists()  # a purged object leaves no copy behind (S3: the cached one is dropped)
    with pytest.raises(FootageNotFound), store.local_copy(KEY):
        pass


# ---------------------------------------------------------------------------------------------- S3 only
def test_s3_multipart_upload_and_a_corrupt_object_is_never_handed_to_a_reader(s3_server, tmp_path):
    st = s3_server.store(tmp_path / "cache", "multipart", multipart_bytes=5 << 20)  # (S3's smallest part)
    src, sha = blob(tmp_path, (11 << 20) + 7)
    st.put(KEY, src, sha)
    head = s3_server.client().head_object(Bucket=s3_server.BUCKET, Key="multipart/" + KEY)
    assert head["ContentLength"] == src.stat().st_size and head["ETag"].endswith('-3"')  # three parts
    with st.local_copy(KEY) as p:
        assert sha256_file(p) == sha
    # An object whose bytes are not those its sha256 says (written behind the store's back): refused.
    s3_server.client().put_object(Bucket=s3_server.BUCKET, Key="multipart/bad.mp4", Body=b"not this",
                                  Metadata={"sha256": sha})
    with pytest.raises(StoreError, match="refused"), st.local_copy("bad.mp4"):
        pass
    assert [q.name for q in (tmp_path / "cache").iterdir() if "part" in q.name or q.stat().st_size == 8] == []


def test_s3_footage_decodes_through_seekable_ranged_reads(s3_server, tmp_path):
    """The review page's frames decode straight from the bucket (PyAV seeking in `open`'s reader), and the
    pipeline's video size from the local copy."""
    from types import SimpleNamespace

    from review_ui.footage_frames import frame_jpeg
    from review_ui.pipeline import video_size

    from .footage_helpers import level, write_segment

    m, path = write_segment(tmp_path / "rec", 7, datetime(2026, 11, 29, 10, 0))
    st = s3_server.store(tmp_path / "cache", f"v-{uuid.uuid4().hex[:8]}")
    st.put(KEY, path, m["sha256"])
    seg = SimpleNamespace(id=1, sha256=m["sha256"], storage_key=KEY, segment_id=m["segment_id"])
    jpeg = frame_jpeg(st, seg, 3.0, tmp_path / "frames")
    import cv2
    import numpy as np

    grey = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE).mean()
    assert abs(grey - level(0, 30)) < 6  # frame 30 of the segment: its grey says which one it is
    with st.local_copy(KEY) as p:
        assert video_size(p) == (320, 240)


def test_s3_cache_is_bounded_and_never_drops_a_copy_in_use(s3_server, tmp_path):
    st = s3_server.store(tmp_path / "cache", f"c-{uuid.uuid4().hex[:8]}", cache_max_bytes=250_000)
    for i in range(3):
        src, sha = blob(tmp_path, 100_000, seed=i)
        st.put(f"k{i}.mp4", src, sha)
    with st.local_copy("k0.mp4") as first:
        with st.local_copy("k1.mp4"), st.local_copy("k2.mp4"):
            assert first.is_file()  # 300 kB in use: over the bound, but nothing in use is dropped
        with st.local_copy("k2.mp4"):
            pass
        assert first.is_file()
    cached = list((tmp_path / "cache").iterdir())
    assert sum(p.stat().st_size for p in cached) <= 250_000 and first in cached


def test_s3_wrong_credentials_missing_bucket_say_so(s3_server, tmp_path):
    from review_ui.storage import S3Store

    bad = S3Store(s3_server.BUCKET, endpoint_url=s3_server.endpoint, region="us-east-1", access_key_id="nobody",
                  secret_access_key="wrong-secret-0123456789", cache_dir=tmp_path)
    with pytest.raises(StoreError, match=f"s3://footage/ at {s3_server.endpoint}.*check the credentials"):
        bad.exists(KEY)
    src, sha = blob(tmp_path)
    with pytest.raises(StoreError, match="refused"):
        bad.put(KEY, src, sha)
    nob = S3Store("no-such-bucket", endpoint_url=s3_server.endpoint, region="us-east-1",
                  access_key_id=s3_server.KEY, secret_access_key=s3_server.SECRET, cache_dir=tmp_path)
    for call in (lambda: nob.exists(KEY), lambda: nob.check(), lambda: list(nob.keys())):
        with pytest.raises(StoreError, match="the bucket no-such-bucket does not exist"):
            call()


# ---------------------------------------------------------------------------------------------- store down
@pytest.fixture
def world(tmp_path):
    """A server's database with two segments due for purging (their match ended and was approved)."""
    settings = Settings(data_dir=tmp_path / "data", admin_token=ADMIN)
    db = Database(settings.db_url)
    s = db.session()
    ev = create_event(s, "Quick delete", "match_end", None)
    b = register_board(s, 7, TOKEN, ev)
    t0 = datetime(2026, 11, 29, 17, 0)
    m = create_match(s, ev, b, t0, "P1", "P2", t0 + timedelta(hours=1))
    update_match(s, m, approved_at=t0 + timedelta(hours=2))
    s.commit()
    yield settings, s, b
    s.close()
    db.dispose()


def add_segments(s, store, tmp_path, b, n=2):
    from review_ui.services import link_segment

    for i in range(n):
        src, sha = blob(tmp_path, 10_000, seed=i)
        key = f"board07/2026-11-29/seg{i}.mp4"
        store.put(key, src, sha)
        start = datetime(2026, 11, 29, 17, 10 + i)
        seg = Segment(board_id=b.id, event_id=b.event_id, segment_id=f"seg{i}", storage_key=key, sha256=sha,
                      bytes=10_000, start=start, end=start + timedelta(minutes=1), frames=900, dropped_frames=0,
                      manifest_json="{}", received_at=start)
        s.add(seg)
        s.flush()
        link_segment(s, seg)
    s.commit()


def test_s3_store_down_fails_fast_and_retention_deletes_nothing(world, tmp_path):
    settings, s, b = world
    srv = seaweed_s3(tmp_path / "seaweed")  # a server of its own: this test kills it
    srv.start()
    try:
        st = srv.store(tmp_path / "cache", "down")
        add_segments(s, st, tmp_path, b)
        hung = srv.store(tmp_path / "cache", "down", read_timeout=0.5)
        srv.proc.send_signal(signal.SIGSTOP)  # frozen: it takes connections and never answers
        t = time.monotonic()
        with pytest.raises(StoreError, match="does not answer"):
            hung.exists(KEY)
        assert time.monotonic() - t < 5
        srv.proc.send_signal(signal.SIGCONT)
        srv.stop()  # dead: connections refused
        src, sha = blob(tmp_path)
        for call in (lambda: st.put(KEY, src, sha), lambda: st.exists(KEY), lambda: list(st.keys()),
                     lambda: st.delete(KEY), lambda: st.check(write=True)):
            t = time.monotonic()
            with pytest.raises(StoreError, match=f"s3://footage/down/ at {srv.endpoint}.*cannot be reached"):
                call()
            assert time.monotonic() - t < 5, "a store that is down answers within seconds"
        report = purge(s, st, now=settings_now())
        assert report.deleted == 0 and "cannot be reached" in report.errors[0] and len(report.errors) == 1
        assert s.scalars(select(PurgeLog)).all() == []  # nothing decided, nothing logged
        assert all(g.deleted_at is None for g in s.scalars(select(Segment)))
        srv.start()  # back: the objects are all there, and the next run purges them
        assert list(st.keys()) == ["board07/2026-11-29/seg0.mp4", "board07/2026-11-29/seg1.mp4"]
        report = purge(s, st, now=settings_now())
        assert report.deleted == 2 and report.errors == [] and list(st.keys()) == []
    finally:
        srv.stop()


def test_retention_stops_at_a_store_that_refuses_to_delete(s3_server, world, tmp_path):
    """A store that answers but will not delete (read-only credentials, as a worker's are): the first
    failure is logged as such and ends the run; no segment is marked deleted."""
    settings, s, b = world
    prefix = f"ro-{uuid.uuid4().hex[:8]}"
    add_segments(s, s3_server.store(tmp_path / "cache", prefix), tmp_path, b)
    reader = s3_server.store(tmp_path / "reader-cache", prefix, reader=True)
    with reader.local_copy("board07/2026-11-29/seg0.mp4") as p:  # it reads
        assert p.stat().st_size == 10_000
    with pytest.raises(StoreError, match="refused"):
        reader.put(KEY, *blob(tmp_path))
    report = purge(s, reader, now=settings_now())
    assert report.deleted == 0 and len(report.errors) == 1 and "refused" in report.errors[0]
    (row,) = s.scalars(select(PurgeLog)).all()  # the one it tried, unverified, saying why
    assert "delete failed" in row.reason and not row.verified_absent
    assert all(g.deleted_at is None for g in s.scalars(select(Segment)))
    assert len(list(reader.keys())) == 2


def settings_now():
    return datetime(2026, 11, 30, 12, 0)


def test_the_server_does_not_start_on_a_store_it_cannot_reach(tmp_path, s3_server):
    settings = Settings(data_dir=tmp_path / "data", admin_token=ADMIN, purge_interval_seconds=0, pipeline=False,
                        **{**s3_server.settings("x"), "s3_bucket": "missing-bucket"})
    t = time.monotonic()
    with pytest.raises(StoreError, match="the bucket missing-bucket does not exist"), \
            TestClient(create_app(settings)):
        pass
    assert time.monotonic() - t < 10


def test_ingest_into_the_s3_store(tmp_path, s3_server):
    """A segment uploaded through the real app lands in the bucket, verified, and reads back."""
    prefix = f"ingest-{uuid.uuid4().hex[:8]}"
    settings = Settings(data_dir=tmp_path / "data", admin_token=ADMIN, purge_interval_seconds=0, pipeline=False,
                        **s3_server.settings(prefix))
    app = create_app(settings)
    with TestClient(app) as c:
        with app.state.db.session() as s:
            register_board(s, 7, TOKEN, create_event(s, "EPC Leg 3"))
            s.commit()
        m, data = make_segment()
        r = upload(c, m, data)
        assert r.status_code == 200 and r.json()["status"] == "stored", r.text
        key = f"board07/2026-11-29/{m['segment_id']}.mp4"
        assert list(app.state.store.keys()) == [key]
        assert not any(p.is_file() for p in settings.staging_path.rglob("*"))  # staging is emptied once stored
    reader = s3_server.store(tmp_path / "worker-cache", prefix)  # as a worker on another machine would
    with reader.open(key) as f:
        assert f.read() == data
    with reader.local_copy(key) as p:
        assert p.read_bytes() == data
    head = s3_server.client().head_object(Bucket=s3_server.BUCKET, Key=f"{prefix}/{key}")
    assert head["Metadata"]["sha256"] == m["sha256"]


# ---------------------------------------------------------------------------------------------- a shared folder
class Share:
    """A real file system of its own (tmpfs, 4 MiB) at `point`, to unmount, fill and make read-only."""

    def __init__(self, point):
        self.point = point

    def mount(self, opts: str = "size=4m") -> None:
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "bgscribe-share", str(self.point)],
                           capture_output=True, text=True)
        if r.returncode:
            pytest.skip(f"cannot mount a file system here (needs root): {r.stderr.strip()}")

    def remount(self, opts: str) -> None:
        subprocess.run(["mount", "-o", f"remount,{opts}", str(self.point)], check=True)

    def umount(self) -> None:
        subprocess.run(["umount", str(self.point)], capture_output=True)


@pytest.fixture
def share(tmp_path):
    sh = Share(tmp_path / "mnt")
    sh.point.mkdir()
    sh.mount()
    yield sh
    for _ in range(3):  # (a mount left behind would outlive the test run)
        sh.umount()


def test_an_unmounted_share_is_refused_not_filled(share, world, tmp_path):
    settings, s, b = world
    settings.footage_dir = share.point
    store = server_store(settings)  # the first start marks the share
    sid = (share.point / MARKER).read_text().strip()
    assert store.store_id == sid and (settings.data_dir / "footage-store-id").read_text().strip() == sid
    add_segments(s, store, tmp_path, b)
    worker = LocalStore(share.point, store_id=sid)  # a worker given the server's id reads it
    with worker.local_copy("board07/2026-11-29/seg0.mp4") as p:
        assert p.stat().st_size == 10_000
    with pytest.raises(StoreError, match=f"its {MARKER} says {sid}, the server's is other"):
        LocalStore(share.point, store_id="other").exists("board07/2026-11-29/seg0.mp4")

    worker_settings = Settings(data_dir=tmp_path / "worker", footage_dir=share.point)  # another machine's
    assert worker_store(worker_settings).store_id == sid  # (no id given: the mark it finds, checked from now on)

    share.umount()  # the share is gone: the mount point is an empty local folder
    with pytest.raises(StoreError, match="is not the server's store .it has no .bgscribe-store file.: is the share"):
        worker_store(worker_settings)  # a worker refuses to start
    why = f"footage store at {share.point} is not the server's store .*is the share mounted"
    for call in (lambda: worker.exists("board07/2026-11-29/seg0.mp4"), lambda: store.put(KEY, *blob(tmp_path)),
                 lambda: store.delete("board07/2026-11-29/seg0.mp4"), lambda: server_store(settings)):
        with pytest.raises(StoreError, match=why):
            call()
    assert list(share.point.iterdir()) == []  # nothing was written into the mount point
    report = purge(s, store, now=settings_now())
    assert report.deleted == 0 and "is the share mounted" in report.errors[0]
    assert s.scalars(select(PurgeLog)).all() == [] and all(g.deleted_at is None for g in s.scalars(select(Segment)))


def test_a_full_share_fails_the_upload_cleanly_and_keeps_it(share, tmp_path):
    settings = Settings(data_dir=tmp_path / "data", admin_token=ADMIN, purge_interval_seconds=0, pipeline=False,
                        footage_dir=share.point)
    app = create_app(settings)
    with TestClient(app) as c:
        with app.state.db.session() as s:
            register_board(s, 7, TOKEN, create_event(s, "EPC Leg 3"))
            s.commit()
        m, data = make_segment(5 << 20)  # more than the 4 MiB share holds
        r = upload(c, m, data, chunk=1 << 20)
        assert r.status_code == 507 and "No space left on device" in r.json()["detail"], r.text
        assert [p.name for p in share.point.rglob("*") if p.is_file()] == [MARKER]  # nothing half-written
        assert [p.stat().st_size for p in settings.staging_path.rglob("*.part")] == [5 << 20]
        with app.state.db.session() as s:
            assert s.scalars(select(Segment)).all() == []
        share.remount("size=16m")  # room again: the agent's retry of complete stores it
        r = c.post(f"/api/v1/ingest/boards/7/segments/{m['segment_id']}/complete", headers={
            "Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200 and list(app.state.store.keys()) == [f"board07/2026-11-29/{m['segment_id']}.mp4"]


def test_a_read_only_share_is_refused_at_start(share, tmp_path):
    settings = Settings(data_dir=tmp_path / "data", admin_token=ADMIN, footage_dir=share.point)
    server_store(settings)
    share.remount("ro")
    with pytest.raises(StoreError, match=f"footage store at {share.point} cannot be written: Read-only file system"):
        server_store(settings)
