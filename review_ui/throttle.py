"""Login throttling: failed logins are counted per account and per client address over a sliding window; past
the limit, every login for that account (or from that address) is refused with 429 and Retry-After until the
oldest counted failure leaves the window, the right password included (else guessing would just go on).

In memory, per server process (the server is one process); a restart forgets the counts.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque

WINDOW_S = 300.0
MAX_PER_ACCOUNT = 5  # 5 wrong passwords for one account in 5 minutes
MAX_PER_ADDRESS = 20  # a venue's office may share one address: more room, but still no guessing at speed
MAX_KEYS = 50_000  # bounds the memory a stranger can make it use


class LoginThrottled(Exception):
    def __init__(self, what: str, retry_after: int):
        self.retry_after = retry_after
        wait = f"{retry_after // 60} min {retry_after % 60} s" if retry_after >= 60 else f"{retry_after} s"
        super().__init__(f"too many failed logins {what}; try again in {wait}")


class LoginThrottle:
    def __init__(self, window_s: float = WINDOW_S, per_account: int = MAX_PER_ACCOUNT,
                 per_address: int = MAX_PER_ADDRESS, clock=time.monotonic):
        self.window, self.clock = window_s, clock
        self.limits = {"account": per_account, "address": per_address}
        self.failures: dict[tuple[str, str], deque[float]] = {}
        self.lock = threading.Lock()

    def _keys(self, username: str, address: str) -> list[tuple[str, str]]:
        return [("account", username.strip().lower()), ("address", address)]

    def check(self, username: str, address: str) -> None:
        """LoginThrottled if this account or this address has failed too often lately."""
        now = self.clock()
        with self.lock:
            for key in self._keys(username, address):
                q = self._recent(key, now)
                limit = self.limits[key[0]]
                if q is not None and len(q) >= limit:
                    retry = max(1, math.ceil(q[-limit] + self.window - now))
                    raise LoginThrottled("for this account" if key[0] == "account" else "from this address", retry)

    def failed(self, username: str, address: str) -> None:
        now = self.clock()
        with self.lock:
            if len(self.failures) >= MAX_KEYS:
                for key in list(self.failures):
                    if not self._recent(key, now):
                        self.failures.pop(key, None)
            for key in self._keys(username, address):
                self.failures.setdefault(key, deque()).append(now)

    def succeeded(self, username: str) -> None:
        with self.lock:
            self.failures.pop(("account", username.strip().lower()), None)

    def _recent(self, key, now: float) -> deque[float] | None:
        q = self.failures.get(key)
        while q and q[0] <= now - self.window:
            q.popleft()
        if q is not None and not q:
            del self.failures[key]
            return None
        return q
