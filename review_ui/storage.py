"""The footage store: where segments live once the server has them.

`FootageStore` is the interface; `LocalStore` keeps objects in a folder (the default: one event,
one machine). An S3-compatible store implements the same five methods with keys as object names
(put = multipart upload + checksum check, delete = DeleteObject, exists = HeadObject).
Keys look like `board07/2026-11-29/b07-20261129T170000123Z.mp4`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Protocol, runtime_checkable


class StoreError(Exception):
    pass


@runtime_checkable
class FootageStore(Protocol):
    def put(self, key: str, src: Path, sha256: str) -> None:
        """Store the file `src` under `key`, verifying it has `sha256`; atomic: all or nothing."""

    def exists(self, key: str) -> bool: ...

    def open(self, key: str): ...  # a binary file object

    def delete(self, key: str) -> None:
        """Delete `key`; no error if it is already gone."""

    def keys(self, prefix: str = "") -> Iterator[str]: ...


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(1 << 20):
            h.update(b)
    return h.hexdigest()


class LocalStore:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _path(self, key: str) -> Path:
        p = (self.root / key).resolve()
        if self.root.resolve() not in p.parents:
            raise StoreError(f"bad key {key!r}")
        return p

    def put(self, key: str, src: Path, sha256: str) -> None:
        dest = self._path(key)
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(f".{dest.name}.tmp")
        try:
            try:
                os.link(src, tmp)
            except OSError:
                shutil.copyfile(src, tmp)
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
        finally:
            tmp.unlink(missing_ok=True)

    def exists(self, key: str) -> bool:
        return self._path(key).is_file()

    def open(self, key: str):
        return open(self._path(key), "rb")

    def local_path(self, key: str) -> Path:
        """The stored file itself, for readers that need a path (video decoders)."""
        return self._path(key)

    def delete(self, key: str) -> None:
        p = self._path(key)
        p.unlink(missing_ok=True)
        parent = p.parent
        while parent != self.root.resolve() and parent.is_dir() and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent

    def keys(self, prefix: str = "") -> Iterator[str]:
        root = self.root.resolve()
        for p in sorted(root.rglob("*")):
            if p.is_file() and not p.name.startswith("."):
                k = p.relative_to(root).as_posix()
                if k.startswith(prefix):
                    yield k


def make_store(settings) -> FootageStore:
    if settings.storage == "local":
        return LocalStore(settings.footage_path)
    raise StoreError(f"unknown footage store {settings.storage!r} (supported: local)")
