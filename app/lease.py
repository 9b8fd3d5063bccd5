"""Leases: exactly one process drives a room's bots, and one the turn clocks, at a time.

A lease is a name (``bots:R``, ``clocks``) held by one process for a few seconds and renewed by it
while it drives; when the holder dies it is not renewed, and after ``seconds`` another process's
attempt takes it over. The writes themselves stay correct without a lease (every write compares
the room's version), so a lease only keeps two processes from doing the same work twice.

``Leases`` (the default) is one process: every lease is its own. ``RedisLeases`` keeps them in
Redis (``BOURSE_BROADCAST_URL=redis://…``); while Redis cannot be reached no lease is held, so
bots and clocks pause rather than run twice, and resume when it is back.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

log = logging.getLogger(__name__)

PREFIX = "bourse:lease:"
# Take the lease if nobody holds it, renew it if we do; 1 when we hold it afterwards.
HOLD = """
local holder = redis.call('get', KEYS[1])
if holder == ARGV[1] then
  redis.call('pexpire', KEYS[1], ARGV[2])
  return 1
end
if not holder then
  redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
  return 1
end
return 0
"""
RELEASE = """
if redis.call('get', KEYS[1]) == ARGV[1] then
  return redis.call('del', KEYS[1])
end
return 0
"""


class Leases:
    """One process: it holds every lease."""

    def __init__(self, origin: str = "", seconds: float = 10.0) -> None:
        self.origin = origin
        self.seconds = seconds

    async def hold(self, name: str) -> bool:
        """Take or renew the lease ``name`` for ``seconds``; whether this process holds it now."""
        return True

    async def release(self, name: str) -> None:
        """Give the lease up (if held), so another process may take it at once."""

    async def unheld(self, names: Iterable[str]) -> list[str]:
        """Those of ``names`` that no process holds (one round trip)."""
        return list(names)

    async def close(self) -> None:
        pass


class RedisLeases(Leases):
    def __init__(self, url: str, origin: str, seconds: float = 10.0) -> None:
        super().__init__(origin, seconds)
        from redis import asyncio as aioredis  # the `scale` extra: imported only when configured

        from app.broadcast import TIMEOUT

        self.redis = aioredis.Redis.from_url(url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT)
        self._hold = self.redis.register_script(HOLD)
        self._release = self.redis.register_script(RELEASE)

    async def hold(self, name: str) -> bool:
        from redis.exceptions import RedisError

        try:
            held = await self._hold(keys=[PREFIX + name], args=[self.origin, int(self.seconds * 1000)])
        except (RedisError, OSError) as failed:
            log.warning("lease %s: Redis cannot be reached (%s); not driving it", name, failed)
            return False
        return bool(held)

    async def release(self, name: str) -> None:
        from redis.exceptions import RedisError

        try:
            await self._release(keys=[PREFIX + name], args=[self.origin])
        except (RedisError, OSError) as failed:
            log.warning("lease %s: not released (%s); it expires by itself", name, failed)

    async def unheld(self, names: Iterable[str]) -> list[str]:
        from redis.exceptions import RedisError

        names = list(names)
        if not names:
            return []
        try:
            holders = await self.redis.mget([PREFIX + name for name in names])
        except (RedisError, OSError):
            return []
        return [name for name, holder in zip(names, holders, strict=True) if holder is None]

    async def close(self) -> None:
        await self.redis.aclose()
