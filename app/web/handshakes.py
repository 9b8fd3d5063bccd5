"""WebSocket handshakes taken a few at a time, so that a crowd opening sockets at once does not stall
every other room (``python -m app`` serves HTTP with ``PacedHttpProtocol``; with ``BOURSE_PLAIN=1``
uvicorn's own protocol).

A socket's handshake costs the event loop real work (the upgrade, the app's guards, the tab's first
message). uvloop reads every connection that is ready in one turn of the loop, so a thousand
spectators opening a room together were a thousand handshakes in a row, and every other room's moves
waited behind them (BENCHMARKS.md, the spectator flood). Here a connection whose request asks for a
WebSocket upgrade stops being read and waits its turn once more than ``HANDSHAKES_PER_TURN`` have
started in the last ``TURN_SECONDS``; the rest of the loop's work runs in between. Plain requests
(pages, moves, lookups) are never held, and a tab opened alone starts at once.

uvicorn offers no public hook for this: ``PacedHttpProtocol`` subclasses its httptools protocol and
overrides ``handle_websocket_upgrade``, so it is tied to the uvicorn version in the lock (a test runs
a crowd through it) and is the first thing to switch off (``BOURSE_PLAIN``) when uvicorn changes.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from weakref import WeakKeyDictionary

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HANDSHAKES_PER_TURN = 2
TURN_SECONDS = 0.002


class HandshakePacer:
    """Starts at most ``per_turn`` handshakes every ``every`` seconds on one event loop, in arrival order."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        per_turn: int = HANDSHAKES_PER_TURN,
        every: float = TURN_SECONDS,
    ) -> None:
        self.loop = loop
        self.per_turn = per_turn
        self.every = every
        self.started = 0  # handshakes started since the last turn
        self.waiting: deque[tuple[asyncio.Transport, Callable[[], None]]] = deque()
        self._turn_due = False

    def start(self, transport: asyncio.Transport, handshake: Callable[[], None]) -> None:
        """Run ``handshake`` now if this turn has room and nobody waits; else stop reading ``transport``
        and run it (reading again) when its turn comes, unless the connection closed meanwhile."""
        if self.started < self.per_turn and not self.waiting:
            self.started += 1
            handshake()
        else:
            transport.pause_reading()
            self.waiting.append((transport, handshake))
        if not self._turn_due:
            self._turn_due = True
            self.loop.call_later(self.every, self._turn)

    def _turn(self) -> None:
        self.started = 0
        while self.waiting and self.started < self.per_turn:
            transport, handshake = self.waiting.popleft()
            if not transport.is_closing():
                self.started += 1
                # each on its own callback: one that fails is the loop's to log, and the others still run
                self.loop.call_soon(_resumed, transport, handshake)
        if self.started:  # the budget is spent until the next turn, which is due then
            self.loop.call_later(self.every, self._turn)
        else:
            self._turn_due = False


def _resumed(transport: asyncio.Transport, handshake: Callable[[], None]) -> None:
    if not transport.is_closing():
        transport.resume_reading()
        handshake()


_pacers: WeakKeyDictionary[asyncio.AbstractEventLoop, HandshakePacer] = WeakKeyDictionary()


def pacer_of(loop: asyncio.AbstractEventLoop) -> HandshakePacer:
    """The loop's pacer (one a loop: a test's server may run on a loop of its own)."""
    pacer = _pacers.get(loop)
    if pacer is None:
        pacer = _pacers[loop] = HandshakePacer(loop)
    return pacer


class PacedHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP protocol, its WebSocket upgrades started through the loop's ``HandshakePacer``.
    The request was parsed already (httptools found the upgrade); the socket is not read meanwhile."""

    def handle_websocket_upgrade(self) -> None:
        pacer_of(self.loop).start(self.transport, super().handle_websocket_upgrade)
