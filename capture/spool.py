"""The local spool: complete segments waiting for the server (or the local store) to take them.

A segment is `ID.mp4` + `ID.json` (its manifest). It leaves the spool only through `remove()`,
which the uploader calls after the server has confirmed the segment's checksum, or the local
store after the copy is verified. Nothing else here ever deletes footage.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from .manifest import Manifest, sha256_file

log = logging.getLogger("bgscribe.capture.spool")


class Spool:
    def __init__(self, folder: Path):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    def pending(self) -> list[Path]:
        """Manifests of complete segments, oldest first."""
        out = []
        for p in self.folder.glob("*.json"):
            if p.name.startswith(".") or p.name.endswith(".part.json"):
                continue
            if (self.folder / (p.stem + ".mp4")).exists():
                out.append(p)
        return sorted(out)

    def video(self, manifest_path: Path) -> Path:
        return manifest_path.with_suffix(".mp4")

    def remove(self, seg_id: str) -> None:
        (self.folder / f"{seg_id}.mp4").unlink(missing_ok=True)
        (self.folder / f"{seg_id}.json").unlink(missing_ok=True)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.folder.iterdir() if p.is_file())

    def count(self) -> int:
        return len(self.pending())

    def free_bytes(self) -> int:
        st = os.statvfs(self.folder)
        return st.f_bavail * st.f_frsize


class LocalStoreSink:
    """`--store DIR`: move each complete segment into DIR/boardNN/YYYY-MM-DD/ after verifying the copy."""

    def __init__(self, store: Path, spool: Spool):
        self.store = Path(store)
        self.spool = spool

    def deliver(self, manifest_path: Path) -> bool:
        m = Manifest.read(manifest_path)
        dest = self.store / f"board{m.board:02d}" / m.start[:10]
        dest.mkdir(parents=True, exist_ok=True)
        src = self.spool.video(manifest_path)
        target = dest / src.name
        if target.exists() and sha256_file(target) == m.sha256:
            self.spool.remove(m.segment_id)
            return True
        tmp = dest / f".{src.name}.tmp"
        try:
            tmp.unlink(missing_ok=True)  # left by an interrupted earlier try
            if os.stat(src).st_dev == os.stat(dest).st_dev:
                os.link(src, tmp)
            else:
                shutil.copyfile(src, tmp)
            if sha256_file(tmp) != m.sha256:
                log.error("copy of %s to %s does not match its checksum; kept in the spool", src, dest)
                tmp.unlink(missing_ok=True)
                return False
            m.write(dest / manifest_path.name)
            os.replace(tmp, target)
        except OSError as e:
            tmp.unlink(missing_ok=True)
            log.error("cannot store %s in %s: %s; kept in the spool", src.name, dest, e)
            return False
        self.spool.remove(m.segment_id)
        log.info("stored %s (%d frames) in %s", m.segment_id, m.frames, dest)
        return True
