"""TLS for a venue: a self-signed certificate for the server (`bgscribe make-cert`), its SHA-256 fingerprint for
capture agents to pin, and the SSL context with which an agent trusts exactly that certificate."""

from __future__ import annotations

import hashlib
import ipaddress
import ssl
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlsplit


def make_self_signed(cert_path: Path, key_path: Path, names: list[str], days: int = 825) -> str:
    """Write a new ECDSA P-256 key (mode 600) and a self-signed certificate for ``names`` (host names and IP
    addresses, as the agents and browsers reach the server); returns the certificate's fingerprint."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    from .security import write_owner_only

    if not names:
        raise ValueError("name at least one host name or IP address the server is reached by")
    sans: list[x509.GeneralName] = []
    for n in names:
        try:
            sans.append(x509.IPAddress(ipaddress.ip_address(n)))
        except ValueError:
            sans.append(x509.DNSName(n))
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, names[0]),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "bgscribe venue server")])
    now = datetime.now(UTC)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - timedelta(minutes=5))
            .not_valid_after(now + timedelta(days=days))
            .add_extension(x509.SubjectAlternativeName(sans), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    key_pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption()).decode()
    write_owner_only(Path(key_path), key_pem)
    cert_pem = cert.public_bytes(serialization.Encoding.PEM).decode()
    Path(cert_path).write_text(cert_pem)
    return fingerprint(cert_pem)


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
