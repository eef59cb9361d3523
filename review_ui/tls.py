"""TLS for a venue: a self-signed certificate for the server (`bgscribe make-cert`) and its SHA-256 fingerprint
for capture agents to pin (they trust it through `capture.pinning`)."""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta
from pathlib import Path


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
    Path(cert_path).write_text(cert.public_bytes(serialization.Encoding.PEM).decode())
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))
