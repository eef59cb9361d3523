"""Real streams, a real server and real agents on 127.0.0.1 for the capture tests and the benchmark."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal as sig_
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FFMPEG = shutil.which("ffmpeg")
RTSP_SERVER = shutil.which("rtsp-server-perl")

needs_ffmpeg = pytest.mark.skipif(FFMPEG is None, reason="ffmpeg is not installed (apt-get install ffmpeg)")
needs_rtsp = pytest.mark.skipif(RTSP_SERVER is None,
                                reason="rtsp-server-perl is not installed (apt-get install rtsp-server-perl)")


def free_ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on 127.0.0.1, their sockets held open together (picked one by one, a port
    just freed may come back at once)."""
    socks = [socket.socket() for _ in range(n)]
    try:
        for s in socks:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def free_port() -> int:
    return free_ports(1)[0]


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(cond, timeout: float, what: str, every: float = 0.2):
    """Poll `cond()` until it returns something truthy; fail the test with `what` after `timeout` seconds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = cond()
        if v:
            return v
        time.sleep(every)
    pytest.fail(f"timed out after {timeout:.0f} s waiting for {what}")


def make_clip(path: Path, seconds: float, size: str = "1280x720", fps: int = 15) -> Path:
    """A test video (moving pattern, frame number drawn in binary) as H.264 MP4."""
    if not path.exists():
        subprocess.run(ffmpeg_lavfi(size, fps, realtime=False) + [
            "-t", str(seconds), "-c:v", "libx264", "-preset", "ultrafast", "-g", str(fps), "-pix_fmt", "yuv420p",
            "-y", str(path)], check=True)
    return path


def frame_numbers(video: Path) -> list[int]:
    """The test camera's frame number of every frame in a recorded segment."""
    import av

    with av.open(str(video)) as c:
        return [frame_number(f) for f in c.decode(video=0)]


class Proc:
    """A background process with its output in a log file; stopped at exit."""

    def __init__(self, args: list[str], log: Path, env: dict | None = None):
        self.args = args
        self.log = log
        self._f = open(log, "ab")  # noqa: SIM115 - closed in stop()
        self.p = subprocess.Popen(args, stdout=self._f, stderr=subprocess.STDOUT, cwd=ROOT,
                                  env={**os.environ, **(env or {})}, start_new_session=True)

    def alive(self) -> bool:
        return self.p.poll() is None

    def signal(self, sig) -> None:
        if self.alive():
            self.p.send_signal(sig)

    def wait(self, timeout: float) -> int:
        return self.p.wait(timeout=timeout)

    def stop(self, sig=sig_.SIGTERM, timeout: float = 30) -> int | None:
        if self.alive():
            self.p.send_signal(sig)
            try:
                self.p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        self._f.close()
        return self.p.returncode

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


NUMBER_BITS = 20  # frame number drawn as 16x16 black/white blocks along the top-left edge


def ffmpeg_lavfi(size: str, fps: int, realtime: bool = True) -> list[str]:
    """A test camera: ffmpeg's moving test pattern with the frame number drawn in binary."""
    strip = (f"nullsrc=size={16 * NUMBER_BITS}x16:rate={fps},format=gray,"
             "geq=lum='255*mod(floor(N/pow(2\\,floor(X/16)))\\,2)'")
    return [FFMPEG, "-hide_banner", "-loglevel", "error", *(["-re"] if realtime else []), "-f", "lavfi", "-i",
            f"testsrc2=size={size}:rate={fps}[a];{strip}[b];[a][b]overlay=format=auto[out0]"]


def frame_number(frame) -> int:
    """Read back the frame number a test camera drew (see ffmpeg_lavfi)."""
    g = frame.to_ndarray(format="gray")
    return sum(1 << i for i, v in enumerate(g[8, 8:16 * NUMBER_BITS:16]) if v > 128)


def mjpeg_server(port: int, log: Path, size: str = "1280x720", fps: int = 15) -> Proc:
    """ffmpeg serving multipart MJPEG over HTTP (one client) at http://127.0.0.1:PORT/cam.mjpg."""
    return Proc(ffmpeg_lavfi(size, fps) + ["-c:v", "mjpeg", "-q:v", "5", "-f", "mpjpeg", "-listen", "1",
                                           f"http://127.0.0.1:{port}/cam.mjpg"], log)


def udp_ts_stream(port: int, log: Path, size: str = "1280x720", fps: int = 15) -> Proc:
    """ffmpeg sending H.264 in MPEG-TS to udp://127.0.0.1:PORT."""
    return Proc(ffmpeg_lavfi(size, fps) + ["-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency",
                                           "-g", str(fps), "-f", "mpegts",
                                           f"udp://127.0.0.1:{port}?pkt_size=1316"], log)


class RtspCamera:
    """rtsp-server-perl on 127.0.0.1 with ffmpeg publishing H.264 into it: rtsp://127.0.0.1:PORT/cam."""

    def __init__(self, tmp: Path, size: str = "1280x720", fps: int = 15):
        self.port, src = free_ports(2)
        self.server = Proc([RTSP_SERVER, "--clientport", str(self.port), "--serverport", str(src),
                            "--client_listen_address", "127.0.0.1", "--source_listen_address", "127.0.0.1"],
                           tmp / "rtsp-server.log")
        wait_for(lambda: _port_open(src), 15, "rtsp-server-perl to listen")
        self.pub = Proc(ffmpeg_lavfi(size, fps) + ["-c:v", "libx264", "-preset", "ultrafast", "-tune",
                                                   "zerolatency", "-g", str(fps), "-f", "rtsp",
                                                   f"rtsp://127.0.0.1:{src}/cam"], tmp / "rtsp-publish.log")
        self.url = f"rtsp://127.0.0.1:{self.port}/cam"

    def stop(self) -> None:
        self.pub.stop()
        self.server.stop(sig_.SIGINT)


def _port_open(port: int) -> bool:
    with contextlib.closing(socket.socket()) as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Server:
    """`bgscribe serve` in a subprocess (real uvicorn, real SQLite, local footage store)."""

    ADMIN = "staff-secret-for-tests"

    def __init__(self, data: Path, port: int | None = None, boards: dict[int, str] | None = None,
                 event: str = "Test Cup", purge_interval: float = 0):
        self.data, self.port = data, port or free_port()
        self.boards, self.event, self.purge_interval = boards or {}, event, purge_interval
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: Proc | None = None
        self.starts = 0

    def start(self) -> Server:
        args = [sys.executable, "-m", "bgscribe.cli", "serve", "--data", str(self.data), "--port", str(self.port),
                "--purge-interval", str(self.purge_interval), "--event", self.event,
                "--no-pipeline"]  # test-pattern footage: nothing to transcribe
        if self.boards:  # tokens in a file and the environment, never on the command line
            tokens = self.data.parent / f"board-tokens-{self.port}"
            tokens.write_text("".join(f"{n}={t}\n" for n, t in self.boards.items()))
            args += ["--board-tokens", str(tokens)]
        self.starts += 1
        self.proc = Proc(args, self.data.parent / f"server-{self.port}.log",
                         env={"BGSCRIBE_ADMIN_TOKEN": self.ADMIN})
        wait_for(self._healthy, 60, "the server to answer /api/v1/health")
        return self

    def _healthy(self) -> bool:
        import httpx

        if not self.proc.alive():
            pytest.fail(f"server exited:\n{self.proc.text()[-3000:]}")
        try:
            return httpx.get(self.url + "/api/v1/health", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self, sig=sig_.SIGTERM) -> None:
        if self.proc:
            self.proc.stop(sig)

    def staff(self, method: str, path: str, **kw):
        import httpx

        r = httpx.request(method, self.url + path, headers={"Authorization": f"Bearer {self.ADMIN}"}, timeout=10,
                          **kw)
        r.raise_for_status()
        return r

    def segments(self) -> list[dict]:
        """Every segment row in the server's database (read directly with sqlite3)."""
        import sqlite3

        with contextlib.closing(sqlite3.connect(self.data / "bgscribe.db")) as db:
            db.row_factory = sqlite3.Row
            return [dict(r) for r in db.execute("select * from segments order by segment_id")]


def agent(board: int, source: str, tmp: Path, *extra: str, name: str = "agent", env: dict | None = None) -> Proc:
    if "--server" in extra and "--live-fps" not in extra:
        extra = (*extra, "--live-fps", "0")  # (the live observer has a test of its own: test_live_observer.py)
    args = [sys.executable, "-m", "bgscribe.cli", "capture", "--board", str(board), "--source", source, *extra]
    return Proc(args, tmp / f"{name}.log", env=env)


def manifests(folder: Path) -> list[dict]:
    out = []
    for p in folder.rglob("*.json"):
        if p.name.endswith(".part.json") or p.name.startswith("."):
            continue
        try:
            out.append(json.loads(p.read_text()))
        except FileNotFoundError:  # uploaded and removed from the spool while we looked
            continue
    return sorted(out, key=lambda m: m["start"])
