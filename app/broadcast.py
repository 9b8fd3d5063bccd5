"""The fan-out between processes: what one process tells the others about the rooms they serve.

Each process renders for its own sockets (``app/web/live/``); only small facts cross processes:

* ``{"kind": "version", "room": R, "version": N}``: room R is at version N (the others read it
  from the database, through their hot snapshot, and bring their tabs up to date);
* ``{"kind": "chat", "room": R, "game": G, "line": {…}}``: a chat line, drawn by each process for
  its tabs' languages;
* ``{"kind": "presence", "room": R, "seats": […], "spectators": N, "names": […]}``: the seats this
  process has tabs open for, and how many spectators' tabs (with a few of their names);
* ``{"kind": "hello"}``: a process (re)joined; the others tell it their presence.

``Broadcast`` (the default) is one process: there is no one to tell. ``RedisBroadcast``
(``BOURSE_BROADCAST_URL=redis://…``, the ``scale`` extra) uses Redis pub/sub, which is at most once:
a message lost in a dropped connection costs the tabs an update until the next change, and on every
reconnection each process brings all of its rooms up to date from the database. A lost version is
never a wrong screen: a process always compares what it sends a tab with what it sent that tab
before, so the next push carries every change since, and a tab that reconnects is sent its whole
table afresh.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

log = logging.getLogger(__name__)

Message = dict[str, Any]
Handler = Callable[[Message], Awaitable[None]]
CHANNEL = "bourse:rooms"
RECONNECT_WAIT = (0.1, 5.0)  # the first and the longest wait between attempts to reach Redis, in seconds
TIMEOUT = 2.0  # seconds a Redis command may take before the process counts Redis as away


class Broadcast:
    """One process: nothing crosses, nothing is sent."""

    shared = False  # whether other processes may serve the same rooms

    def __init__(self) -> None:
        self.origin = secrets.token_hex(8)  # this process, in the messages it sends

    async def start(self, heard: Handler, reconnected: Callable[[], Awaitable[None]]) -> None:
        """Call ``heard`` with each message of another process and ``reconnected`` after the
        channel was lost and found again (until ``stop``)."""

    async def send(self, message: Message) -> None:
        """Tell the other processes (at most once: a failure is logged, never raised)."""

    async def stop(self) -> None:
        pass


class RedisBroadcast(Broadcast):
    shared = True

    def __init__(self, url: str, channel: str = CHANNEL) -> None:
        super().__init__()
        from redis import asyncio as aioredis  # the `scale` extra: imported only when configured

        self.url = url
        self.channel = channel
        self.redis = aioredis.Redis.from_url(url, socket_connect_timeout=TIMEOUT, socket_timeout=TIMEOUT)
        self._listener: asyncio.Task[None] | None = None
        self.connected = asyncio.Event()  # subscribed now (tests wait for it)

    async def start(self, heard: Handler, reconnected: Callable[[], Awaitable[None]]) -> None:
        self._listener = asyncio.create_task(self._listen(heard, reconnected))

    async def _listen(self, heard: Handler, reconnected: Callable[[], Awaitable[None]]) -> None:
        from redis.exceptions import RedisError

        wait, first = RECONNECT_WAIT[0], True
        while True:
            try:
                # No read timeout while listening: a quiet channel is not a lost one.
                async with self.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(self.channel)
                    self.connected.set()
                    wait = RECONNECT_WAIT[0]
                    await self.send({"kind": "hello"})
                    if not first:
                        log.warning("broadcast: Redis is back; bringing every room up to date")
                        await reconnected()
                    first = False
                    async for raw in pubsub.listen():
                        message = self._decode(raw.get("data"))
                        if message is not None and message.get("from") != self.origin:
                            try:
                                await heard(message)
                            except Exception:
                                log.exception("broadcast: could not handle %r", message)
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as lost:
                if self.connected.is_set():
                    log.warning("broadcast: lost Redis (%s); retrying", lost)
                self.connected.clear()
                await asyncio.sleep(wait)
                wait = min(wait * 2, RECONNECT_WAIT[1])

    @staticmethod
    def _decode(data: Any) -> Message | None:
        try:
            message = json.loads(data)
        except (TypeError, ValueError):
            return None
        return message if isinstance(message, dict) else None

    async def send(self, message: Message) -> None:
        from redis.exceptions import RedisError

        try:
            await self.redis.publish(self.channel, json.dumps({**message, "from": self.origin}))
        except (RedisError, OSError) as failed:
            log.warning("broadcast: not sent (%s): %s", failed, message.get("kind"))

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        await self.redis.aclose()


def make_broadcast(url: str) -> Broadcast:
    """The fan-out ``BOURSE_BROADCAST_URL`` names: empty for one process, ``redis://…`` for several."""
    if not url:
        return Broadcast()
    if url.startswith(("redis://", "rediss://", "unix://")):
        return RedisBroadcast(url)
    raise ValueError(f"BOURSE_BROADCAST_URL is empty or redis://…, not {url!r}")
