"""WebSocket handshakes taken a few at a time (app/web/handshakes.py): a crowd's sockets wait their turn
unread, the loop's other work runs in between, and every one of them is answered."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.web.handshakes import HandshakePacer, PacedHttpProtocol
from tests.platform.test_served_sockets import upgrade_request
from tests.support import served


class Loop:
    """What the pacer asks of its event loop, run by hand: callbacks due now, timers by their turn."""

    def __init__(self) -> None:
        self.soon: list[tuple[Callable[..., None], tuple[Any, ...]]] = []
        self.timers: list[Callable[[], None]] = []

    def call_soon(self, callback: Callable[..., None], *args: Any) -> None:
        self.soon.append((callback, args))

    def call_later(self, delay: float, callback: Callable[[], None]) -> None:
        assert delay > 0
        self.timers.append(callback)

    def run_soon(self) -> None:
        due, self.soon = self.soon, []
        for callback, args in due:
            callback(*args)

    def next_turn(self) -> None:
        """The timer that is due (one at a time, as the pacer keeps one), then what it called soon."""
        assert len(self.timers) == 1, self.timers
        self.timers.pop()()
        self.run_soon()


class Transport:
    def __init__(self) -> None:
        self.reading = True
        self.closing = False

    def pause_reading(self) -> None:
        self.reading = False

    def resume_reading(self) -> None:
        self.reading = True

    def is_closing(self) -> bool:
        return self.closing


def connections(count: int) -> tuple[list[Transport], list[int], list[Callable[[], None]]]:
    """``count`` connections asking for an upgrade: their transports, the handshakes started (in the
    order they started) and the handshake of each."""
    transports = [Transport() for _ in range(count)]
    started: list[int] = []

    def handshake(number: int) -> Callable[[], None]:
        def start() -> None:
            assert transports[number].reading, "a handshake starts with its socket read again"
            started.append(number)

        return start

    return transports, started, [handshake(number) for number in range(count)]


def paced(
    per_turn: int, count: int, failing: int | None = None
) -> tuple[Loop, HandshakePacer, list[Transport], list[int]]:
    """``count`` connections asking for an upgrade at once, through a pacer of ``per_turn`` a turn: its
    loop, the pacer, their transports and the handshakes started (``failing``: that one's raises)."""
    loop = Loop()
    pacer = HandshakePacer(cast(asyncio.AbstractEventLoop, loop), per_turn=per_turn, every=0.002)
    transports, started, handshakes = connections(count)
    if failing is not None:

        def fail() -> None:
            raise RuntimeError("a broken request")

        handshakes[failing] = fail
    for transport, handshake in zip(transports, handshakes, strict=True):
        pacer.start(cast(asyncio.Transport, transport), handshake)
    return loop, pacer, transports, started


def test_a_crowd_of_handshakes_starts_two_a_turn_in_arrival_order() -> None:
    loop, pacer, transports, started = paced(per_turn=2, count=7)
    assert started == [0, 1]  # at once: the turn had room
    assert [transport.reading for transport in transports] == [True, True] + [False] * 5
    loop.next_turn()
    assert started == [0, 1, 2, 3]
    loop.next_turn()
    assert started == [0, 1, 2, 3, 4, 5]
    loop.next_turn()
    assert started == list(range(7))
    assert all(transport.reading for transport in transports)
    loop.next_turn()  # a turn with nobody waiting ends the turns
    assert loop.timers == []
    transports, started, handshakes = connections(1)
    pacer.start(cast(asyncio.Transport, transports[0]), handshakes[0])
    assert started == [0]  # a tab opened alone starts at once


def test_a_connection_that_closed_while_waiting_takes_no_turn() -> None:
    loop, _, transports, started = paced(per_turn=1, count=4)
    transports[1].closing = True
    loop.next_turn()
    assert started == [0, 2]  # 1 left: its place went to the next one
    loop.timers.pop()()  # 3's turn comes
    transports[3].closing = True  # and it closes before it starts
    loop.run_soon()
    assert started == [0, 2]
    assert not transports[3].reading
    loop.next_turn()  # nobody waits: the turns end
    assert loop.timers == []


def test_a_handshake_that_fails_leaves_the_others_their_turn() -> None:
    loop, _, _, started = paced(per_turn=2, count=5, failing=2)
    loop.timers.pop()()
    (first, first_args), (second, second_args) = loop.soon
    loop.soon = []
    with pytest.raises(RuntimeError):  # the event loop logs it and goes on with its next callback
        first(*first_args)
    second(*second_args)
    loop.next_turn()
    assert started == [0, 1, 3, 4]


def test_uvicorns_protocol_still_upgrades_through_the_method_the_pacer_takes_over() -> None:
    """``PacedHttpProtocol`` paces by overriding uvicorn's ``handle_websocket_upgrade``: if a new uvicorn
    upgraded some other way, every handshake would start at once again, and nothing else would say so."""
    assert "handle_websocket_upgrade" in HttpToolsProtocol.data_received.__code__.co_names
    assert PacedHttpProtocol.handle_websocket_upgrade is not HttpToolsProtocol.handle_websocket_upgrade


def test_a_crowd_opening_sockets_at_once_is_answered_and_a_page_is_not_held_behind_it(tmp_path: Path) -> None:
    """As ``python -m app`` serves: 60 spectators' handshakes sent before any is read, then a plain
    request; every socket is accepted, the plain request answered."""
    settings = {"BOURSE_RATE_CONNECT": "off", "BOURSE_MAX_SOCKETS_PER_CLIENT": "0"}
    with served(tmp_path, settings=settings) as url:
        made = httpx.post(f"{url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"})
        assert made.status_code == 201, made.text
        host, port = url.removeprefix("http://").split(":")
        request = upgrade_request(url, f"/ws/rooms/{made.json()['code']}?lang=en")
        crowd = [socket.create_connection((host, int(port)), timeout=20) for _ in range(60)]
        try:
            for connection in crowd:
                connection.sendall(request)
            assert httpx.get(f"{url}/healthz", timeout=10).status_code == 200
            for connection in crowd:
                answer = b""
                while b"\r\n\r\n" not in answer:
                    chunk = connection.recv(4096)
                    assert chunk, answer
                    answer += chunk
                assert answer.startswith(b"HTTP/1.1 101"), answer[:200]
        finally:
            for connection in crowd:
                connection.close()
