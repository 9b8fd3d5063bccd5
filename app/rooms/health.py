"""Whether the database answers and takes writes, and has room to grow (``/healthz``)."""

from __future__ import annotations

import logging
import shutil
import time

from sqlalchemy import func, update
from sqlalchemy.exc import OperationalError
from sqlmodel import col, select

from app.db import Database
from app.models import Health, Room, utcnow

log = logging.getLogger(__name__)

HEALTH_EVERY = 1.0  # seconds: /healthz commits a write at most this often
WRITE_FAILURE_MEMORY = 30.0  # seconds /healthz reports a failed write
MIN_FREE_BYTES = 64 * 1024 * 1024  # less free space beside the SQLite file than this: /healthz warns


class HealthCheck:
    """Answers /healthz, and remembers for a while that a write failed."""

    def __init__(self, db: Database, min_free_bytes: int = MIN_FREE_BYTES) -> None:
        self.db = db
        self.min_free_bytes = min_free_bytes
        self._written_at = -HEALTH_EVERY  # when the health check last committed its write
        self._write_failed_at = -WRITE_FAILURE_MEMORY  # when a write last failed

    def readable(self) -> bool:
        """Whether the database answers a read (a WAL database on a read-only volume does not)."""
        try:
            with self.db.read() as session:
                session.exec(select(func.count()).select_from(Room)).one()
        except OperationalError as failure:
            log.error("health check: the database cannot be read: %s", failure.orig)
            return False
        return True

    def write_failed(self) -> None:
        """Note that a write just failed in the database (the web layer calls this on its errors)."""
        self._write_failed_at = time.monotonic()

    def writable(self) -> bool:
        """Whether the database takes writes: no write failed in the last ``WRITE_FAILURE_MEMORY``
        seconds (a nearly full disk may still take a tiny write but not a room), and a tiny write
        (the health row's time, committed at most once a second) succeeds now."""
        now = time.monotonic()
        if now - self._write_failed_at < WRITE_FAILURE_MEMORY:
            return False
        try:
            self._probe_write(now)
        except OperationalError as failure:
            log.error("health check: the database cannot be written: %s", failure.orig)
            self.write_failed()
            return False
        return True

    def _probe_write(self, now: float) -> None:
        if now - self._written_at < HEALTH_EVERY:
            return
        with self.db.write() as session:
            session.execute(update(Health).where(col(Health.id) == 1).values(checked_at=utcnow()))
        self._written_at = now

    def free_bytes_if_low(self) -> int | None:
        """The free space on the SQLite file's disk when it is below ``min_free_bytes``, so /healthz
        warns before writes fail; ``None`` while there is enough (or the database is a server's)."""
        if self.db.path is None:
            return None
        free = shutil.disk_usage(self.db.path.parent).free
        return free if free < self.min_free_bytes else None
