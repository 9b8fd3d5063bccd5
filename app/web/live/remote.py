"""The other processes (issue 13): several processes serve one room's tabs through a broadcast
(``app/broadcast.py``, which lists the messages).

A process that changes a room tells the others "room R is at version N" (and chat lines, and which
seats it has tabs for and how many spectators, some by name), and each brings its own tabs up to date from the database. Every process
says it is alive every lease; the tabs of one that has said nothing for three leases (it died)
count as closed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from app.broadcast import Broadcast, Message
from app.lease import Leases
from app.metrics import timed_publish
from app.web.live.bots import BotDriver
from app.web.live.chat import Chat
from app.web.live.fanout import Fanout
from app.web.live.presence import NAMES_SHOWN, Crowd, Presence


class Remote:
    def __init__(
        self,
        broadcast: Broadcast,
        leases: Leases,
        clock: Callable[[], float],
        fanout: Fanout,
        presence: Presence,
        chat: Chat,
        bots: BotDriver,
    ) -> None:
        self.broadcast = broadcast
        self.leases = leases
        self.clock = clock
        self.fanout = fanout
        self.presence = presence
        self.chat = chat
        self.bots = bots
        self.crowds_here: dict[str, Crowd] = {}  # room -> who watches it here, as last told (timers.py)
        self._heard_from: dict[str, float] = {}  # process -> when it last said anything (it says "alive")
        self._handlers: Mapping[str, Callable[[Message], Awaitable[None]]] = {
            "hello": self._hello,
            "version": self._version,
            "presence": self._presence,
            "chat": self._chat,
        }

    @property
    def shared(self) -> bool:
        """Whether other processes may serve the same rooms."""
        return self.broadcast.shared

    async def start(self) -> None:
        """Listen to the other processes (until ``stop``)."""
        await self.broadcast.start(self.heard, self.resync)

    async def stop(self) -> None:
        await self.broadcast.stop()

    async def heard(self, message: Message) -> None:
        """A message of another process: each kind has its handler ("alive" only says it lives)."""
        self._heard_from[str(message.get("from"))] = self.clock()
        kind = message.get("kind")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            await handler(message)

    async def _hello(self, _: Message) -> None:
        """A process started: tell it who is here."""
        for code in list(self.fanout.rooms):
            await self.announce_presence(code)

    async def _version(self, message: Message) -> None:
        code, version = message.get("room"), message.get("version")
        if not isinstance(code, str) or not isinstance(version, int):
            return
        self.bots.changed_elsewhere(code)
        room = self.fanout.rooms.get(code)
        if room is not None and (room.latest is None or room.latest.version < version):
            with timed_publish(True):  # a change made on another process, brought to the tabs here
                await self.fanout.publish(code)

    async def _presence(self, message: Message) -> None:
        code, seats = message.get("room"), message.get("seats")
        if not isinstance(code, str) or not isinstance(seats, list):
            return
        origin = str(message.get("from"))
        before = self.presence.connected(code)
        self.presence.seen_elsewhere(code, origin, frozenset(seat for seat in seats if isinstance(seat, int)))
        count, names = message.get("spectators"), message.get("names")
        self.presence.crowd_elsewhere(
            code,
            origin,
            Crowd(
                count if isinstance(count, int) and count > 0 else 0,
                tuple(name for name in names if isinstance(name, str))[:NAMES_SHOWN]
                if isinstance(names, list)
                else (),
            ),
        )
        await self._presence_changed(code, before)

    async def _chat(self, message: Message) -> None:
        code = message.get("room")
        if isinstance(code, str):
            self.chat.heard(code, message)
            self.presence.wrote(code)  # a spectator here may have named themselves

    async def resync(self) -> None:
        """The broadcast was lost and is back: what it missed may have changed any room."""
        for code in list(self.fanout.rooms):
            await self.fanout.publish(code)
            await self.announce_presence(code)

    async def announce_version(self, code: str, version: int) -> None:
        if self.broadcast.shared:
            await self.broadcast.send({"kind": "version", "room": code, "version": version})

    async def announce_presence(self, code: str) -> None:
        """Tell the others which seats this process has tabs for, and who watches here."""
        if self.broadcast.shared:
            seats = sorted(self.presence.connected_here(code))
            crowd = self.crowds_here.get(code, Crowd())
            await self.broadcast.send(
                {
                    "kind": "presence",
                    "room": code,
                    "seats": seats,
                    "spectators": crowd.count,
                    "names": list(crowd.names),
                }
            )

    async def announce_crowd(self, code: str, crowd: Crowd) -> None:
        """Who watches the room here changed (the timer counts it every few seconds): tell the others."""
        if crowd.count:
            self.crowds_here[code] = crowd
        else:
            self.crowds_here.pop(code, None)
        await self.announce_presence(code)

    async def keep_in_touch(self) -> None:
        """Say this process is alive, and forget the tabs of processes silent for three leases (they
        died without closing their tabs)."""
        await self.broadcast.send({"kind": "alive"})
        silent_since = self.clock() - 3 * self.leases.seconds
        silent = {origin for origin, heard in self._heard_from.items() if heard < silent_since}
        if not silent:
            return
        changed = self.presence.forget(silent)
        for origin in silent:
            del self._heard_from[origin]
        for code, before in changed.items():
            await self._presence_changed(code, before)

    async def _presence_changed(self, code: str, before: frozenset[int]) -> None:
        """Seats came online or went offline on another process: tell this process's tabs."""
        if self.presence.settle(code, before) and code in self.fanout.rooms:
            await self.fanout.publish(code)
