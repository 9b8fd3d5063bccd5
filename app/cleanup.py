"""The cleanup sweep: rooms nobody will come back to are deleted, periodically.

* A room never started and untouched for ``BOURSE_WAITING_ROOM_DAYS`` (default 7) goes, with its
  seats: anyone can create rooms, and a forgotten invitation should not last for ever.
* Finished games are players' history and are kept, unless the host sets
  ``BOURSE_GAME_RETENTION_DAYS``: then a game untouched for that long goes with its action log.
* A game still being played is never deleted, and a move, a chat line or an open tab (the live
  side marks the rooms each process has tabs open on) touches a room.

``sweep_once`` is what the periodic task (started by the app's lifespan) runs; tests call it.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from starlette.concurrency import run_in_threadpool

from app.config import Settings
from app.models import utcnow
from app.rooms import RoomService

log = logging.getLogger(__name__)


def sweep_once(service: RoomService, settings: Settings, now: datetime | None = None) -> list[str]:
    """Delete what the settings say is no longer wanted; the codes of the rooms deleted."""
    now = now or utcnow()

    def before(days: float) -> datetime | None:
        return now - timedelta(days=days) if days > 0 else None

    deleted = service.sweeper.sweep(before(settings.waiting_room_days), before(settings.game_retention_days))
    if deleted:
        log.info("cleanup: deleted %d rooms nobody came back to", len(deleted))
    return deleted


async def sweep_periodically(service: RoomService, settings: Settings) -> None:
    """Sweep now and then every ``BOURSE_CLEANUP_INTERVAL`` seconds, off the event loop."""
    while True:
        try:
            await run_in_threadpool(sweep_once, service, settings)
        except Exception:  # a failed sweep (a busy or full disk) must not stop the next one
            log.exception("cleanup sweep failed")
        await asyncio.sleep(settings.cleanup_interval)
