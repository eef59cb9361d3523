"""The manifest that travels with every footage segment: what was recorded, when, and its checksum."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from transcriber.fileio import write_text_atomic

SCHEMA = 1


def iso(t: float) -> str:
    """Wall-clock seconds since the epoch -> ISO 8601 UTC with milliseconds."""
    return datetime.fromtimestamp(t, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def parse_iso(s: str) -> float:
    return datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp()


def segment_id(board: int, start: float) -> str:
    """A stable, sortable, unique-per-board name: b07-20261129T170000123Z."""
    d = datetime.fromtimestamp(start, UTC)
    return f"b{board:02d}-{d:%Y%m%dT%H%M%S}{d.microsecond // 1000:03d}Z"


@dataclass
class Gap:
    """Wall-clock time with no footage: camera stalled or cut, disk low, agent down."""

    start: str
    end: str
    seconds: float
    reason: str


@dataclass
class Manifest:
    board: int
    segment_id: str
    start: str  # wall clock of the first frame
    end: str  # wall clock of the last frame plus one frame interval
    frames: int
    dropped_frames: int  # frames the camera delivered that the agent could not record
    gaps: list[Gap] = field(default_factory=list)
    sha256: str = ""
    bytes: int = 0
    width: int = 0
    height: int = 0
    fps: float = 0.0
    keyframe_interval: int = 0
    codec: str = "h264"
    container: str = "mp4 (fragmented)"
    source: str = ""
    closed: str = ""  # why the segment ended: length, stop, source_lost, disk_low, error, recovered
    recovered: bool = False  # rebuilt after a crash from the segment file and its journal
    schema: int = SCHEMA

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> Manifest:
        d = dict(d)
        d["gaps"] = [Gap(**g) for g in d.get("gaps", [])]
        known = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in d.items() if k in known})

    @property
    def duration(self) -> float:
        return parse_iso(self.end) - parse_iso(self.start)

    def write(self, path: Path) -> None:
        write_json_atomic(path, self.to_dict())

    @classmethod
    def read(cls, path: Path) -> Manifest:
        return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while b := f.read(chunk):
            h.update(b)
    return h.hexdigest()


def write_json_atomic(path: Path, data: dict) -> None:
    """A crash or a full disk never leaves half a manifest."""
    write_text_atomic(path, json.dumps(data, indent=1))
