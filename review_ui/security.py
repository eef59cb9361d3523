"""The server's checks on what it is given: secrets (no known defaults, a minimum length, generated when
absent), names (no control characters, a sensible length), and owner-only files for what it writes."""

from __future__ import annotations

import logging
import os
import re
import secrets
import sys
from pathlib import Path

log = logging.getLogger("bgscribe.server")

MIN_TOKEN = 16  # staff and board tokens: a 16-character token of letters, digits and -_ is > 90 bits
# Placeholders from examples, docs and habit: a server started with one of these is open to anybody.
KNOWN_DEFAULTS = frozenset({
    "change-me", "changeme", "change_me", "change-me-please", "replace-me", "replace-with-the-board-token",
    "secret", "password", "admin", "token", "default", "bgscribe", "staff-secret", "test", "example",
})
ADMIN_TOKEN_FILE = "admin-token"
MAX_NAME = 200  # the names' columns hold 200


class InsecureSetting(ValueError):
    """A secret the server must not run with (a known default, or too short)."""


def check_token(value: str, what: str) -> str:
    """``value`` if it is usable as a bearer token, else InsecureSetting saying why."""
    v = value.strip()
    if v.lower() in KNOWN_DEFAULTS or "change-me" in v.lower() or "changeme" in v.lower():
        raise InsecureSetting(f"{what} is a known placeholder ({v!r}): anybody could use it; set a random one "
                              f"(python3 -c 'import secrets; print(secrets.token_urlsafe(32))'), or leave it empty "
                              "and the server makes one")
    if len(v) < MIN_TOKEN:
        raise InsecureSetting(f"{what} has {len(v)} characters; it needs at least {MIN_TOKEN}")
    if any(not c.isprintable() or c.isspace() for c in v):
        raise InsecureSetting(f"{what} must not contain spaces or control characters")
    return v


def resolve_admin_token(settings) -> str:
    """The staff API token: the configured one (checked), else the one made on an earlier start (kept in
    DATA/admin-token, mode 600), else a new one, written there and printed once on stderr."""
    if settings.admin_token:
        return check_token(settings.admin_token, "admin_token")
    path = Path(settings.data_dir) / ADMIN_TOKEN_FILE
    if path.is_file():
        return check_token(path.read_text(), f"the staff token in {path}")
    owner_only_dir(Path(settings.data_dir))
    token = secrets.token_urlsafe(32)
    write_owner_only(path, token + "\n")
    print(f"bgscribe: no admin_token was set, so this one was made for the staff API (shown once; it is kept in "
          f"{path}, readable by this user only):\n  {token}", file=sys.stderr, flush=True)
    log.info("staff token generated and kept in %s", path)
    return token


# ----------------------------------------------------------------------------- names

# Characters that break a line or reorder text: never in a name (they would end a .mat score line, or make a
# name read differently from what it is).
_BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def bad_char(c: str) -> bool:
    import unicodedata

    return unicodedata.category(c) in ("Cc", "Zl", "Zp", "Cs", "Co", "Cn") or c in _BIDI


def check_name(value: object, what: str = "a name", *, max_len: int = MAX_NAME, allow_empty: bool = False) -> str:
    """A person's, an account's or an event's name, stripped; ValueError (with a message for the person at the
    form) for one with control characters, or too long, or empty where that is not allowed."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be text")
    if any(bad_char(c) for c in value):
        raise ValueError(f"{what} must not contain line breaks, tabs or other control characters")
    v = " ".join(value.split())
    if (not v and not allow_empty) or len(v) > max_len:
        raise ValueError(f"{what} is {0 if allow_empty else 1} to {max_len} characters")
    return v


# ----------------------------------------------------------------------------- files


def owner_only_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if needed and make it rwx for its owner only (footage is personal data)."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(path, 0o700)
    return path


def write_owner_only(path: Path, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def read_secret_file(path: str | Path, what: str) -> str:
    """A token kept in a file (so that it is not on a command line, where `ps` shows it)."""
    p = Path(path)
    try:
        text = p.read_text().strip()
    except OSError as e:
        raise ValueError(f"cannot read {what} from {p}: {e.strerror}") from None
    if not text:
        raise ValueError(f"{p} is empty; it should hold {what}")
    return text


class RedactTokens(logging.Filter):
    """Access-log lines without the secret of an address (`?token=...`: the live boards' viewer link, which an OBS
    browser source can only carry in its address): a log is read by more people than the link is given to."""

    PATTERN = re.compile(r"([?&]token=)[^&\s]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(self.PATTERN.sub(r"\1REDACTED", a) if isinstance(a, str) else a for a in record.args)
        return True


def redact_access_log() -> None:
    log = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, RedactTokens) for f in log.filters):
        log.addFilter(RedactTokens())
