"""Upload spooled segments to the server: resumable, idempotent, verified by checksum.

Protocol (see review_ui/api/ingest.py), every request with `Authorization: Bearer TOKEN`:

1. `POST /api/v1/ingest/boards/{board}/segments` with the manifest. The server answers
   `{"status": "stored"}` if it already holds this segment with this checksum (nothing to send),
   else `{"status": "partial", "received": N}`: the bytes it already has from an earlier try.
2. `PUT .../segments/{id}/data?offset=N` with the next chunk, until all bytes are there.
3. `POST .../segments/{id}/complete`: the server checks the sha256 of what it received against
   the manifest, stores the segment and answers `{"status": "stored", "sha256": ...}`.

Only after step 3 confirms the same checksum does the segment leave the spool.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path

from .manifest import Manifest
from .spool import Spool

log = logging.getLogger("bgscribe.capture.upload")

CHUNK = 1 << 20


class UploadError(Exception):
    pass


class Rejected(UploadError):
    """The server refuses this segment for good (bad token, conflicting checksum): keep it, say why."""


class Client:
    """HTTP(S) to the server's ingest API. Over https the server's certificate is checked against the system's
    CAs, or `ca_file`, or is pinned (`pin`: the SHA-256 fingerprint `bgscribe make-cert` printed): the token is
    never sent to a server that cannot show it."""

    def __init__(self, server: str, token: str, board: int, timeout: float = 10.0, pin: str | None = None,
                 ca_file: str | None = None):
        self.server, self.token, self.timeout, self.pin, self.ca_file = server, token, timeout, pin, ca_file
        self.base = server.rstrip("/") + f"/api/v1/ingest/boards/{board}"
        self._http = None

    @property
    def http(self):
        """The connection pool, made on first use (a pinned certificate is fetched then: the server may be down
        when the agent starts)."""
        import httpx

        if self._http is None:
            self._http = httpx.Client(timeout=self.timeout, headers={"Authorization": f"Bearer {self.token}"},
                                      verify=self._verify())
        return self._http

    def _verify(self):
        from .pinning import PinMismatch, server_trust

        try:
            return server_trust(self.server, self.pin, self.ca_file, self.timeout)
        except PinMismatch as e:
            raise Rejected(str(e)) from None
        except OSError as e:
            raise UploadError(f"server unreachable: {e}") from None

    def close(self) -> None:
        if self._http is not None:
            self._http.close()

    def _check(self, r, what: str):
        if r.status_code == 401:
            raise Rejected(f"{what}: server rejected the board token (401)")
        if r.status_code in (409, 422) and what != "data":
            raise Rejected(f"{what}: {r.status_code} {r.text[:300]}")
        if r.status_code >= 400:
            raise UploadError(f"{what}: HTTP {r.status_code} {r.text[:300]}")
        return r.json()

    def upload(self, manifest_path: Path, video: Path) -> str:
        """Send one segment; returns the sha256 the server confirmed."""
        import httpx

        m = Manifest.read(manifest_path)
        try:
            st = self._check(self.http.post(f"{self.base}/segments", json=m.to_dict()), "announce")
            if st["status"] == "stored":
                return st["sha256"]
            offset = int(st["received"])
            size = video.stat().st_size
            with open(video, "rb") as f:
                while offset < size:
                    f.seek(offset)
                    chunk = f.read(CHUNK)
                    r = self.http.put(f"{self.base}/segments/{m.segment_id}/data", params={"offset": offset},
                                      content=chunk, headers={"Content-Type": "application/octet-stream"})
                    if r.status_code == 409:  # the server has a different offset: continue from there
                        offset = int(r.json()["received"])
                        continue
                    offset = int(self._check(r, "data")["received"])
            done = self._check(self.http.post(f"{self.base}/segments/{m.segment_id}/complete"), "complete")
            return done["sha256"]
        except httpx.HTTPError as e:
            raise UploadError(f"server unreachable: {e.__class__.__name__}: {e}") from e

    def heartbeat(self, payload: dict) -> None:
        import httpx

        try:
            self._check(self.http.post(f"{self.base}/heartbeat", json=payload), "heartbeat")
        except httpx.HTTPError as e:
            raise UploadError(f"server unreachable: {e}") from e

    def live(self, body: bytes) -> dict:
        """Post live observations (JSON Lines); the server's answer (`cut_segment`: the match is over)."""
        import httpx

        try:
            return self._check(self.http.post(f"{self.base}/live", content=body,
                                              headers={"Content-Type": "application/x-ndjson"}), "live")
        except httpx.HTTPError as e:
            raise UploadError(f"server unreachable: {e}") from e

    def live_frames(self, body: bytes) -> dict:
        """Post live frames for the server to observe (`vision.live_frames`); its answer, as `live`'s."""
        import httpx

        try:
            r = self.http.post(f"{self.base}/live/frames", content=body,
                               headers={"Content-Type": "application/octet-stream"})
        except httpx.HTTPError as e:
            raise UploadError(f"server unreachable: {e}") from e
        if r.status_code == 503:  # a server that observes no frames: the agent observes them itself
            return {"take_back": True, "why": r.text[:300]}
        return self._check(r, "live frames")

    def board_setup(self) -> dict:
        """The board's confirmed field and learnt state, for the live observer."""
        import httpx

        try:
            return self._check(self.http.get(f"{self.base}/board"), "board")
        except httpx.HTTPError as e:
            raise UploadError(f"server unreachable: {e}") from e


class Uploader(threading.Thread):
    """Drains the spool in the background; retries with backoff while the server is down."""

    def __init__(self, spool: Spool, client: Client, retry_max: float = 30.0):
        super().__init__(name="uploader", daemon=True)
        self.spool = spool
        self.client = client
        self.retry_max = retry_max
        self.stop_event = threading.Event()
        self.wake = threading.Event()
        self.uploaded = 0
        self.last_uploaded = ""
        self.last_error = ""
        self.server_ok: bool | None = None

    def run(self) -> None:
        delay = 1.0
        while not self.stop_event.is_set():
            pending = self.spool.pending()
            failed = False
            for mpath in pending:
                if self.stop_event.is_set():
                    return
                if self.deliver(mpath):
                    delay = 1.0
                else:
                    failed = True
                    break
            if failed:
                self.stop_event.wait(delay)
                delay = min(delay * 2, self.retry_max)
            elif not pending:
                self.wake.wait(1.0)
                self.wake.clear()

    def deliver(self, mpath: Path) -> bool:
        m = Manifest.read(mpath)
        try:
            confirmed = self.client.upload(mpath, self.spool.video(mpath))
        except Rejected as e:
            self.last_error = str(e)
            log.error("upload of %s refused: %s; segment kept in the spool", m.segment_id, e)
            return False
        except UploadError as e:
            self.last_error = str(e)
            if self.server_ok is not False:
                log.warning("%s; segments stay in the spool and are sent when it is back", e)
            self.server_ok = False
            return False
        if confirmed != m.sha256:
            self.last_error = f"server confirmed checksum {confirmed} for {m.segment_id}, expected {m.sha256}"
            log.error("%s; segment kept in the spool", self.last_error)
            return False
        if self.server_ok is False:
            log.info("server reachable again; uploading the spool")
        self.server_ok = True
        self.spool.remove(m.segment_id)
        self.uploaded += 1
        self.last_uploaded = m.segment_id
        log.info("uploaded %s (%d frames, %d bytes, sha256 confirmed)", m.segment_id, m.frames, m.bytes)
        return True

    def drain(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds for the spool to empty (at shutdown)."""
        end = time.monotonic() + timeout
        self.wake.set()
        while time.monotonic() < end:
            if not self.spool.pending():
                return True
            time.sleep(0.2)
        return not self.spool.pending()

    def stop(self) -> None:
        self.stop_event.set()
        self.wake.set()
