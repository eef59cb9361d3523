"""The footage store: where segments live once the server has them, readable by workers on other machines.

`FootageStore` is the interface. Two stores implement it (`make_store` picks one from the settings):

- `LocalStore`: objects are files in a folder. One machine, or a shared folder (an NFS/SMB mount) that
  workers on other machines mount too. The danger of a share is that an unmounted one is just an empty
  local folder: the server would store footage where no worker finds it, and retention would "delete"
  files that are still on the share. So the server marks its store with an identity file
  (`.bgscribe-store`, a random id it also keeps in data_dir), and a store given that id checks the mark
  before every operation and refuses, saying so, where it is missing or another store's.
- `S3Store`: an S3-compatible bucket (AWS, MinIO, SeaweedFS, Garage...), keys as object names under a
  prefix. put = upload (multipart for big files) then HeadObject to check size and the sha256 kept in the
  object's metadata; open = ranged GetObject reads (seekable, for video decoders and HTTP ranges); readers
  that need a file path get a verified copy in a bounded local cache (`local_copy`).

Keys look like `board07/2026-11-29/b07-20261129T170000123Z.mp4`. Every failure of the store itself
(unreachable, refused, full, not the server's) is a one-line `StoreError`; nothing is half-written.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import secrets
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable

MARKER = ".bgscribe-store"  # the shared folder's identity file (hidden: keys() never lists it)
SERVER_ID_FILE = "footage-store-id"  # in data_dir: the id of the store this server made


class StoreError(Exception):
    """The store cannot do what was asked (unreachable, refused, full, not the server's store...)."""


class FootageNotFound(StoreError):
    """The store works but holds no object under that key."""


@runtime_checkable
class FootageStore(Protocol):
    def put(self, key: str, src: Path, sha256: str) -> None:
        """Store the file `src` under `key`, verifying it has `sha256`; atomic: all or nothing."""

    def exists(self, key: str) -> bool: ...

    def open(self, key: str): ...  # a seekable binary file object; FootageNotFound if absent

    def local_copy(self, key: str) -> contextlib.AbstractContextManager[Path]:
        """A readable local file with the object's bytes while the context lasts (video decoders, child
        processes need a path); FootageNotFound if absent."""

    def delete(self, key: str) -> None:
        """Delete `key`; no error if it is already gone."""

    def keys(self, prefix: str = "") -> Iterator[str]: ...

    def check(self, write: bool = False) -> None:
        """StoreError saying what is wrong unless the store can be read (and written, with `write`)."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 20):
            h.update(b)
    return h.hexdigest()


def _why(e: OSError) -> str:
    return e.strerror or str(e)


class LocalStore:
    """A folder. `store_id`: the identity its `.bgscribe-store` file must hold (a shared folder's: the
    server's own store, or a worker given the server's id); every operation checks it first, so an
    unmounted share fails loudly instead of reading or writing an empty local folder."""

    def __init__(self, root: Path, store_id: str | None = None):
        self.root = Path(root)
        self.store_id = store_id
        if store_id is None:
            self.root.mkdir(parents=True, exist_ok=True)  # (a reader given an id never makes the folder)

    def __str__(self) -> str:
        return f"footage store at {self.root}"

    # ------------------------------------------------------------------ identity
    def read_marker(self) -> str | None:
        try:
            return (self.root / MARKER).read_text().strip() or None
        except FileNotFoundError:
            return None
        except OSError as e:
            raise StoreError(f"{self} cannot be read: {_why(e)}") from None

    def write_marker(self, store_id: str) -> None:
        """Mark a new store (never replaces a mark: FileExistsError)."""
        try:
            fd = os.open(self.root / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as f:
                f.write(store_id + "\n")
                os.fsync(f.fileno())
        except FileExistsError:
            raise
        except OSError as e:
            raise StoreError(f"{self} cannot be written: {_why(e)}") from None

    def _verify(self) -> None:
        if self.store_id is None:
            return
        if not self.root.is_dir():
            raise StoreError(f"{self} does not exist: is the share mounted?")
        got = self.read_marker()
        if got != self.store_id:
            what = f"it has no {MARKER} file" if got is None else f"its {MARKER} says {got}"
            raise StoreError(f"{self} is not the server's store ({what}, the server's is {self.store_id}): "
                             "is the share mounted?")

    def check(self, write: bool = False) -> None:
        self._verify()
        try:
            os.listdir(self.root)
        except OSError as e:
            raise StoreError(f"{self} cannot be read: {_why(e)}") from None
        if write:
            probe = self.root / f".probe-{secrets.token_hex(4)}"
            try:
                probe.write_bytes(b"bgscribe")
            except OSError as e:
                raise StoreError(f"{self} cannot be written: {_why(e)}") from None
            finally:
                with contextlib.suppress(OSError):
                    probe.unlink()

    # ------------------------------------------------------------------ objects
    def _path(self, key: str) -> Path:
        self._verify()
        p = (self.root / key).resolve()
        if self.root.resolve() not in p.parents:
            raise StoreError(f"bad key {key!r}")
        return p

    def put(self, key: str, src: Path, sha256: str) -> None:
        dest = self._path(key)
        tmp = dest.with_name(f".{dest.name}.tmp")
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(src, tmp)
            except OSError as e:
                if e.errno in (errno.ENOSPC, errno.EROFS, errno.EDQUOT):
                    raise
                shutil.copyfile(src, tmp)  # (another file system, or one without hard links)
            with open(tmp, "rb") as f:
                os.fsync(f.fileno())
            got = sha256_file(tmp)
            if got != sha256:
                raise StoreError(f"{key}: stored copy has sha256 {got}, expected {sha256}")
            os.replace(tmp, dest)
            fd = os.open(dest.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as e:  # a full disk, a read-only or vanished mount: say which store and why
            raise StoreError(f"{self} cannot store {key}: {_why(e)}") from None
        finally:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def open(self, key: str):
        try:
            return open(self._path(key), "rb")
        except FileNotFoundError:
            raise FootageNotFound(f"{key} is not in the {self}") from None
        except OSError as e:
            raise StoreError(f"{self} cannot read {key}: {_why(e)}") from None

    @contextlib.contextmanager
    def local_copy(self, key: str) -> Iterator[Path]:
        p = self._path(key)  # the file itself: it already is local (or on a mounted share)
        if not p.is_file():
            raise FootageNotFound(f"{key} is not in the {self}")
        yield p

    def delete(self, key: str) -> None:
        p = self._path(key)
        root = self.root.resolve()
        try:
            p.unlink(missing_ok=True)
            parent = p.parent
            while parent != root and parent.is_dir() and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        except OSError as e:
            raise StoreError(f"{self} cannot delete {key}: {_why(e)}") from None

    def keys(self, prefix: str = "") -> Iterator[str]:
        self._verify()
        root = self.root.resolve()
        for p in sorted(root.rglob("*")):
            if p.is_file() and not p.name.startswith("."):
                k = p.relative_to(root).as_posix()
                if k.startswith(prefix):
                    yield k


class S3Store:
    """An S3-compatible bucket. Short timeouts and one retry: a request to a store that is down (or hangs)
    fails in seconds (an upload answers 507 and the agent retries later) instead of hanging."""

    def __init__(self, bucket: str, prefix: str = "", *, endpoint_url: str | None = None, region: str | None = None,
                 access_key_id: str | None = None, secret_access_key: str | None = None,
                 cache_dir: Path, cache_max_bytes: int = 16 << 30, multipart_bytes: int = 64 << 20,
                 connect_timeout: float = 3.0, read_timeout: float = 10.0):
        try:
            import boto3
            from boto3.s3.transfer import TransferConfig
            from botocore.config import Config
        except ImportError:
            raise StoreError("footage store s3 needs boto3: pip install 'bgscribe[s3]'") from None
        if not bucket:
            raise StoreError("footage store s3: no bucket set (s3_bucket)")
        self.bucket, self.prefix = bucket, prefix.strip("/") + "/" if prefix.strip("/") else ""
        self.endpoint = endpoint_url or "AWS S3"
        self.cache_dir, self.cache_max_bytes = Path(cache_dir), cache_max_bytes
        cfg = Config(connect_timeout=connect_timeout, read_timeout=read_timeout,
                     retries={"max_attempts": 2, "mode": "standard"},
                     # other S3 servers rarely have per-bucket host names
                     s3={"addressing_style": "path" if endpoint_url else "auto"})
        self.client = boto3.session.Session().client(
            "s3", endpoint_url=endpoint_url or None, region_name=region or None, config=cfg,
            aws_access_key_id=access_key_id or None, aws_secret_access_key=secret_access_key or None)
        self.transfer = TransferConfig(multipart_threshold=multipart_bytes, multipart_chunksize=multipart_bytes,
                                       max_concurrency=4, num_download_attempts=2)
        self._in_use: dict[Path, int] = {}
        self._lock = threading.Lock()

    def __str__(self) -> str:
        return f"footage store s3://{self.bucket}/{self.prefix} at {self.endpoint}"

    def _k(self, key: str) -> str:
        if not key or key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"bad key {key!r}")
        return self.prefix + key

    def _error(self, e: Exception, doing: str) -> StoreError:
        """One line naming the store and what is wrong, for every failure of the client or the server."""
        from botocore.exceptions import ClientError, NoCredentialsError, ReadTimeoutError
        from botocore.exceptions import ConnectionError as Unreachable

        if isinstance(e, ClientError):
            err = e.response.get("Error", {})
            code, status = err.get("Code", ""), e.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
            if code in ("NoSuchBucket",) or (status == 404 and "bucket" in doing):
                return StoreError(f"{self}: {doing}: the bucket {self.bucket} does not exist")
            if code in ("InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied", "403") or status == 403:
                return StoreError(f"{self}: {doing}: refused ({code or status}): check the credentials "
                                  "(s3_access_key_id / AWS_ACCESS_KEY_ID) and their rights on the bucket")
            return StoreError(f"{self}: {doing}: {code or status} {err.get('Message', '')}".rstrip())
        if isinstance(e, NoCredentialsError):
            return StoreError(f"{self}: {doing}: no credentials (set s3_access_key_id and s3_secret_access_key, "
                              "or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
        text = str(e).splitlines()[0] if str(e) else type(e).__name__
        how = ("cannot be reached" if isinstance(e, Unreachable) else
               "does not answer" if isinstance(e, ReadTimeoutError) else "failed")
        return StoreError(f"{self}: {doing}: {how} ({text})")

    @contextlib.contextmanager
    def _calls(self, doing: str):
        from boto3.exceptions import Boto3Error
        from botocore.exceptions import BotoCoreError, ClientError

        try:
            yield
        except (BotoCoreError, ClientError, Boto3Error) as e:
            cause = e.__context__ if isinstance(e, Boto3Error) and e.__context__ is not None else e
            raise self._error(cause, doing) from None

    def _head(self, key: str) -> dict | None:
        from botocore.exceptions import ClientError

        k = self._k(key)
        with self._calls(f"looking up {key}"):
            try:
                return self.client.head_object(Bucket=self.bucket, Key=k)
            except ClientError as e:
                if e.response.get("ResponseMetadata", {}).get("HTTPStatusCode") not in (403, 404):
                    raise
                # A HEAD answer has no body: a missing bucket or bad credentials look like a missing key
                # unless the bucket itself is asked (check raises saying which).
                self.check()
                if e.response["ResponseMetadata"]["HTTPStatusCode"] == 404:
                    return None
                raise

    def check(self, write: bool = False) -> None:
        with self._calls("checking the bucket"):
            self.client.head_bucket(Bucket=self.bucket)
        if write:
            probe = f"{self.prefix}.bgscribe-probe-{secrets.token_hex(4)}"
            with self._calls("writing a test object"):
                self.client.put_object(Bucket=self.bucket, Key=probe, Body=b"bgscribe")
                self.client.delete_object(Bucket=self.bucket, Key=probe)

    def put(self, key: str, src: Path, sha256: str) -> None:
        k, size = self._k(key), Path(src).stat().st_size
        got = sha256_file(src)
        if got != sha256:
            raise StoreError(f"{key}: the file has sha256 {got}, expected {sha256}")
        # The object appears whole or not at all (a failed multipart upload is aborted); the HEAD checks
        # that what the server holds is this file (size, and the sha256 that readers verify copies by).
        with self._calls(f"storing {key}"):
            self.client.upload_file(str(src), self.bucket, k, Config=self.transfer,
                                    ExtraArgs={"Metadata": {"sha256": sha256}, "ContentType": "video/mp4"})
        head = self._head(key)
        if head is None or head["ContentLength"] != size or head.get("Metadata", {}).get("sha256") != sha256:
            with contextlib.suppress(StoreError):
                self.delete(key)
            raise StoreError(f"{self}: {key} was not stored as sent (the server holds "
                             f"{'nothing' if head is None else str(head['ContentLength']) + ' bytes'})")

    def exists(self, key: str) -> bool:
        return self._head(key) is not None

    def open(self, key: str):
        head = self._head(key)
        if head is None:
            raise FootageNotFound(f"{key} is not in the {self}")
        return io.BufferedReader(_RangeReader(self, self._k(key), head["ContentLength"]), 1 << 20)

    # ------------------------------------------------------------------ local copies
    def _cached(self, key: str, etag: str = "*") -> Path:
        kh = hashlib.sha256(key.encode()).hexdigest()[:32]
        eh = "*" if etag == "*" else hashlib.sha256(etag.encode()).hexdigest()[:16]
        return self.cache_dir / f"{kh}-{eh}{Path(key).suffix}"

    def _drop_cached(self, key: str) -> None:
        for p in self.cache_dir.glob(self._cached(key).name):
            with self._lock:
                if p not in self._in_use:
                    p.unlink(missing_ok=True)

    @contextlib.contextmanager
    def local_copy(self, key: str) -> Iterator[Path]:
        """A verified copy in the cache (named by key and ETag: a replaced object is fetched anew), kept
        for the next reader; the cache is held under `cache_max_bytes` by dropping the least recently used
        copies that no reader holds."""
        head = self._head(key)
        if head is None:
            self._drop_cached(key)  # purged: no copy of it stays behind here either
            raise FootageNotFound(f"{key} is not in the {self}")
        path = self._cached(key, head.get("ETag", ""))
        with self._lock:
            self._in_use[path] = self._in_use.get(path, 0) + 1
        try:
            if path.is_file() and path.stat().st_size == head["ContentLength"]:
                os.utime(path)  # recently used
            else:
                self._download(key, head, path)
            self._bound_cache()
            yield path
        finally:
            with self._lock:
                self._in_use[path] -= 1
                if not self._in_use[path]:
                    del self._in_use[path]

    def _download(self, key: str, head: dict, path: Path) -> None:
        self.cache_dir.mkdir(parents=True, exist_ok=True, mode=0o700)  # footage is personal data
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
        try:
            with self._calls(f"fetching {key}"):
                self.client.download_file(self.bucket, self._k(key), str(tmp), Config=self.transfer)
            want = head.get("Metadata", {}).get("sha256")
            got = sha256_file(tmp) if want else None
            if got != want or tmp.stat().st_size != head["ContentLength"]:
                raise StoreError(f"{self}: the copy of {key} has sha256 {got} and {tmp.stat().st_size} bytes, "
                                 f"the store says {want} and {head['ContentLength']}: refused")
            os.replace(tmp, path)
        except OSError as e:
            raise StoreError(f"cannot keep a copy of {key} in {self.cache_dir}: {_why(e)}") from None
        finally:
            tmp.unlink(missing_ok=True)

    def _bound_cache(self) -> None:
        files = []
        for p in self.cache_dir.iterdir():
            with contextlib.suppress(FileNotFoundError):
                st = p.stat()
                if p.name.endswith(".part"):
                    if st.st_mtime < time.time() - 24 * 3600:  # left by a reader that died mid-download
                        p.unlink(missing_ok=True)
                    continue
                files.append((st.st_mtime, st.st_size, p))
        total = sum(f[1] for f in files)
        for _, size, p in sorted(files):
            if total <= self.cache_max_bytes:
                break
            with self._lock:
                if p in self._in_use:
                    continue
                p.unlink(missing_ok=True)
            total -= size

    def delete(self, key: str) -> None:
        with self._calls(f"deleting {key}"):
            self.client.delete_object(Bucket=self.bucket, Key=self._k(key))
        self._drop_cached(key)

    def keys(self, prefix: str = "") -> Iterator[str]:
        with self._calls("listing the bucket"):
            pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket,
                                                                         Prefix=self.prefix + prefix)
            for page in pages:
                for obj in page.get("Contents", []):
                    k = obj["Key"][len(self.prefix):]
                    if not k.rsplit("/", 1)[-1].startswith("."):
                        yield k


class _RangeReader(io.RawIOBase):
    """A seekable file over an object: one streaming GET from the current position, a new one after a seek."""

    def __init__(self, store: S3Store, k: str, size: int):
        self.store, self.k, self.size, self.pos = store, k, size, 0
        self.body, self.body_pos = None, -1

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self.pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self.pos = max(0, {io.SEEK_SET: 0, io.SEEK_CUR: self.pos, io.SEEK_END: self.size}[whence] + offset)
        return self.pos

    def readinto(self, b) -> int:
        n = min(len(b), self.size - self.pos)
        if n <= 0:
            return 0
        with self.store._calls(f"reading {self.k}"):
            if self.body is None or self.body_pos != self.pos:
                self._close_body()
                self.body = self.store.client.get_object(Bucket=self.store.bucket, Key=self.k,
                                                         Range=f"bytes={self.pos}-")["Body"]
                self.body_pos = self.pos
            data = self.body.read(n)
        if not data:  # the server closed the stream early: an error, never a short file
            self._close_body()
            raise StoreError(f"{self.store}: reading {self.k}: the stream ended at byte {self.pos} of {self.size}")
        b[:len(data)] = data
        self.pos += len(data)
        self.body_pos = self.pos
        return len(data)

    def _close_body(self) -> None:
        if self.body is not None:
            self.body.close()
            self.body = None

    def close(self) -> None:
        self._close_body()
        super().close()


def make_store(settings) -> FootageStore:
    """The store the settings name (unchecked: `server_store` and `worker_store` check it); with
    `footage_store_id`, a folder is checked to be that store before every use."""
    if settings.storage == "local":
        return LocalStore(settings.footage_path, settings.footage_store_id or None)
    if settings.storage == "s3":
        return S3Store(settings.s3_bucket, settings.s3_prefix, endpoint_url=settings.s3_endpoint_url,
                       region=settings.s3_region, access_key_id=settings.s3_access_key_id,
                       secret_access_key=settings.s3_secret_access_key,
                       cache_dir=settings.data_dir / "cache" / "footage", cache_max_bytes=settings.footage_cache_bytes)
    raise StoreError(f"unknown footage store {settings.storage!r} (supported: local, s3)")


def server_store(settings) -> FootageStore:
    """The server's store, checked once at start (StoreError saying what is wrong). A local folder is
    marked with an identity the first time; afterwards the server refuses a folder without its mark (an
    unmounted share) rather than filling the empty mount point."""
    store = make_store(settings)
    if isinstance(store, LocalStore):
        record = Path(settings.data_dir) / SERVER_ID_FILE
        known = settings.footage_store_id or (record.read_text().strip() if record.is_file() else "")
        if not known:
            known = store.read_marker()  # a store made before (a new data_dir): adopt it
            if known is None:
                known = secrets.token_hex(8)
                with contextlib.suppress(FileExistsError):  # (another server process marked it meanwhile)
                    store.write_marker(known)
                known = store.read_marker() or known
            record.parent.mkdir(parents=True, exist_ok=True)
            record.write_text(known + "\n")
        store.store_id = known
    store.check(write=True)
    return store


def worker_store(settings) -> FootageStore:
    """A pipeline worker's store, checked once at its start. A folder must carry a mark: the server's id
    (`footage_store_id`, or the server's record where the worker shares its data_dir), else the mark found
    there, which every later use then checks. A folder without one is an unmounted share or the wrong
    path, whose every segment would otherwise fail as "missing"."""
    store = make_store(settings)
    if isinstance(store, LocalStore) and store.store_id is None:
        record = Path(settings.data_dir) / SERVER_ID_FILE
        known = (record.read_text().strip() if record.is_file() else "") or store.read_marker()
        if not known:
            raise StoreError(f"{store} is not the server's store (it has no {MARKER} file): is the share mounted? "
                             f"(footage_store_id: the server's id, in its data_dir/{SERVER_ID_FILE})")
        store.store_id = known
    store.check()
    return store
