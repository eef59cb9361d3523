"""Trusting exactly one server certificate: the SHA-256 fingerprint `bgscribe make-cert` printed, pinned by the
capture agent and the staff commands, so that a token is never sent to a server that cannot show it."""

from __future__ import annotations

import hashlib
import ssl
from urllib.parse import urlsplit


def fingerprint(cert_pem: str) -> str:
    """SHA-256 of the certificate (DER), as `AB:CD:...` (what browsers and `openssl x509 -fingerprint` show)."""
    der = ssl.PEM_cert_to_DER_cert(cert_pem)
    return ":".join(f"{b:02X}" for b in hashlib.sha256(der).digest())


def normalise_fingerprint(text: str) -> str:
    hexdigits = "".join(c for c in text.upper() if c in "0123456789ABCDEF")
    if len(hexdigits) != 64:
        raise ValueError(f"a SHA-256 fingerprint has 64 hex digits (with or without colons), not {text!r}")
    return ":".join(hexdigits[i:i + 2] for i in range(0, 64, 2))


class PinMismatch(Exception):
    """The server presented another certificate than the pinned one: nothing is sent to it."""


def pinned_context(server_url: str, pin: str, timeout: float = 10.0) -> ssl.SSLContext:
    """An SSL context that trusts only the server's certificate with fingerprint ``pin``: the certificate is
    fetched (no request, no token sent), checked against the pin, and made the one trust anchor, so every later
    connection must present that very certificate. OSError while the server cannot be reached; PinMismatch."""
    u = urlsplit(server_url)
    if u.scheme != "https":
        raise ValueError(f"a pinned certificate needs an https:// server, not {server_url!r}")
    pem = ssl.get_server_certificate((u.hostname, u.port or 443), timeout=timeout)
    got = fingerprint(pem)
    if got != normalise_fingerprint(pin):
        raise PinMismatch(f"the server at {u.netloc} presented a certificate with fingerprint {got}, not the "
                          f"pinned {normalise_fingerprint(pin)}: refusing to send it anything")
    ctx = ssl.create_default_context(cadata=pem)
    ctx.check_hostname = False  # the pin names the certificate itself, whatever address the agent uses
    return ctx


def server_trust(server_url: str, pin: str | None, ca_file: str | None, timeout: float = 10.0):
    """httpx's `verify` for a client of the server: the pinned certificate's context, the CA file's, or True (the
    system's CAs). PinMismatch when the server shows another certificate; OSError while it cannot be reached."""
    if pin:
        return pinned_context(server_url, pin, timeout)
    if ca_file:
        return ssl.create_default_context(cafile=ca_file)
    return True
