"""A tab's outbox and sender (``app/web/live/fanout.py``): what one open tab costs and keeps."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

from fastapi import WebSocket

from app.web.live import Tab
from app.web.live.fanout import OUTBOX_LIMIT

T = TypeVar("T")


def run(scenario: Callable[[], Awaitable[T]]) -> T:
    """Run ``scenario`` on an event loop of its own thread: the browser tests' Playwright may keep a
    loop running in this one, where ``asyncio.run`` refuses to start."""

    async def main() -> T:
        return await scenario()

    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, main()).result()


class RecordingSocket:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.closed_with: int | None = None

    async def send_text(self, text: str) -> None:
        self.texts.append(text)

    async def close(self, code: int) -> None:
        self.closed_with = code


async def _until(condition: Any) -> None:
    async with asyncio.timeout(5):
        while not condition():
            await asyncio.sleep(0)


def _open_tab() -> tuple[Tab, RecordingSocket]:
    socket = RecordingSocket()
    return Tab(socket=cast(WebSocket, socket), seat=0, locale="en"), socket


def test_an_idle_tab_keeps_nothing_it_has_sent() -> None:
    async def scenario() -> list[Any]:
        tab, socket = _open_tab()
        sender = asyncio.create_task(tab.send_pushes())
        page = "<section>" + "x" * 24_000 + "</section>"  # a tab's first push: its whole page
        tab.push(page)
        await _until(lambda: socket.texts == [page] and tab.unsent == 0)
        await asyncio.sleep(0)  # the sender waits for its next message
        frame = sender.get_coro().cr_frame  # type: ignore[union-attr]  # a coroutine's frame while suspended
        held = [value for value in frame.f_locals.values() if value is page]
        sender.cancel()
        return held

    assert run(scenario) == []


def test_a_tab_sends_in_order_and_closes_when_too_far_behind() -> None:
    async def scenario() -> tuple[list[str], int | None, bool]:
        tab, socket = _open_tab()
        for number in range(3):
            tab.push(f"m{number}")
        sender = asyncio.create_task(tab.send_pushes())
        await _until(lambda: len(socket.texts) == 3)
        for number in range(OUTBOX_LIMIT + 1):  # a reader that stopped: more than an outbox holds
            tab.push(f"late{number}")
        await asyncio.wait_for(sender, 5)
        return socket.texts[:3], socket.closed_with, tab.closed

    texts, closed_with, closed = run(scenario)
    assert texts == ["m0", "m1", "m2"]
    assert closed_with == 4408 and closed
