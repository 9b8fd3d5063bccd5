"""The wall clock deadlines are read against (tests move time by replacing ``now_ms`` here)."""

from __future__ import annotations

import time


def now_ms() -> int:
    """The wall clock in epoch milliseconds: what deadlines are (a restart must not move them)."""
    return int(time.time() * 1000)
