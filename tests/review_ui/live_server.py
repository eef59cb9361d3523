"""The real server on 127.0.0.1 (uvicorn, configured as `bgscribe serve` configures it) in a thread of the test,
and raw HTTP for what a client library would not send (a body that never ends, a lying Content-Length)."""

from __future__ import annotations

import socket
import threading
import time

import httpx

from review_ui.app import create_app
from review_ui.cli import uvicorn_config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, settings):
        import uvicorn

        settings.host, settings.port = "127.0.0.1", free_port()
        self.settings = settings
        self.app = create_app(settings)
        self.server = uvicorn.Server(uvicorn_config(self.app, settings, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        scheme = "https" if settings.tls_cert else "http"
        self.url = f"{scheme}://127.0.0.1:{settings.port}"

    @property
    def state(self):
        return self.app.state

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.time() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.time() < deadline, "the server did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)

    def client(self, **kw) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=20, **kw)


def raw_request(port: int, head: str, body: bytes = b"", wait: float = 5.0) -> tuple[int, dict, bytes]:
    """Send the request head and (part of) a body, then read what the server answers within `wait` seconds,
    without sending the rest: (status, headers, body). Status 0: no answer in time."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as s:
        s.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        data = b""
        try:
            while b"\r\n\r\n" not in data or len(data) < _length(data):
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        except TimeoutError:
            pass
    if not data:
        return 0, {}, b""
    head_bytes, _, rest = data.partition(b"\r\n\r\n")
    lines = head_bytes.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return int(lines[0].split()[1]), headers, rest


def _length(data: bytes) -> int:
    head, sep, _ = data.partition(b"\r\n\r\n")
    for ln in head.decode("latin-1").split("\r\n")[1:]:
        k, _, v = ln.partition(":")
        if k.strip().lower() == "content-length":
            return len(head) + len(sep) + int(v)
    return len(data) + 1 if not sep else len(data)
