"""The spool and the local store sink, and finding the complete part of a cut-short fragmented MP4."""

from __future__ import annotations

import hashlib
import struct

from capture.fmp4 import complete_length, truncate_to_complete
from capture.manifest import Manifest
from capture.spool import LocalStoreSink, Spool


def box(kind: bytes, payload: bytes = b"") -> bytes:
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def test_complete_length_stops_at_the_last_whole_fragment(tmp_path):
    head = box(b"ftyp", b"isom") + box(b"moov", b"x" * 50)
    frag1 = box(b"moof", b"m" * 20) + box(b"mdat", b"d" * 100)
    frag2 = box(b"moof", b"m" * 20) + box(b"mdat", b"d" * 100)
    f = tmp_path / "a.mp4"
    for data, want in [
        (head, len(head)),
        (head + frag1, len(head + frag1)),
        (head + frag1 + frag2[:-10], len(head + frag1)),  # mdat cut short
        (head + frag1 + frag2[:30], len(head + frag1)),  # moof without its mdat
        (head + frag1 + frag2, len(head + frag1 + frag2)),
        (head[:-5], 0),  # not even the header
        (b"", 0),
    ]:
        f.write_bytes(data)
        assert complete_length(f) == want
    f.write_bytes(head + frag1 + frag2[:-10])
    assert truncate_to_complete(f) == len(head + frag1) == f.stat().st_size


def fake_segment(spool: Spool, seg_id: str = "b07-20261129T170000000Z", data: bytes = b"video" * 1000) -> Manifest:
    (spool.folder / f"{seg_id}.mp4").write_bytes(data)
    m = Manifest(board=7, segment_id=seg_id, start="2026-11-29T17:00:00.000Z", end="2026-11-29T17:01:00.000Z",
                 frames=900, dropped_frames=0, sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    m.write(spool.folder / f"{seg_id}.json")
    return m


def test_local_store_sink_moves_verified_segments(tmp_path):
    spool = Spool(tmp_path / "spool")
    m = fake_segment(spool)
    fake_segment(spool, "b07-20261129T170100000Z")
    (spool.folder / "b07-20261129T170200000Z.mp4.part").write_bytes(b"in progress")  # not complete: not pending
    assert [p.stem for p in spool.pending()] == [m.segment_id, "b07-20261129T170100000Z"]
    dest = tmp_path / "store" / "board07" / "2026-11-29"
    dest.mkdir(parents=True)
    (dest / f".{m.segment_id}.mp4.tmp").write_bytes(b"left by a crash")
    sink = LocalStoreSink(tmp_path / "store", spool)
    assert all(sink.deliver(p) for p in spool.pending())
    assert spool.pending() == []
    assert (dest / f"{m.segment_id}.mp4").read_bytes() == b"video" * 1000
    assert Manifest.read(dest / f"{m.segment_id}.json").sha256 == m.sha256
    assert not (dest / f".{m.segment_id}.mp4.tmp").exists()
    assert (spool.folder / "b07-20261129T170200000Z.mp4.part").exists()


def test_a_segment_that_does_not_match_its_checksum_stays_in_the_spool(tmp_path):
    spool = Spool(tmp_path / "spool")
    m = fake_segment(spool)
    (spool.folder / f"{m.segment_id}.mp4").write_bytes(b"bit rot")
    sink = LocalStoreSink(tmp_path / "store", spool)
    assert not sink.deliver(spool.pending()[0])
    assert [p.stem for p in spool.pending()] == [m.segment_id]
    assert not list((tmp_path / "store").rglob("*.mp4"))
