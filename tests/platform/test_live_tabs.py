"""A tab's outbox and sender (``app/web/live/fanout.py``): what one open tab costs and keeps."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, TypeVar, cast

import pytest
from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool

from app.games.base import random_legal_action
from app.rooms import RoomService, RoomSnapshot
from app.web.live import LiveRooms, Tab, fanout
from app.web.live.fanout import OUTBOX_LIMIT, PUSHES_PER_TURN

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


def test_a_crowds_publish_leaves_the_loop_free_between_its_hundreds(service: RoomService) -> None:
    """A move in a room of 250 spectators sends each its update, at most ``PUSHES_PER_TURN`` sends in
    one turn of the event loop: another room's work runs between them (BENCHMARKS.md, the flood)."""
    code, _, _ = service.seats.create_room("qe", 3, {}, "Ann")
    service.seats.join(code, "Bo")
    service.seats.join(code, "Ci")
    service.seats.start(code, 0)

    async def scenario() -> tuple[list[int], list[int]]:
        live = LiveRooms(service, bot_delay=0)
        room = live.fanout.open(code)
        crowd = [_open_tab() for _ in range(250)]
        for tab, _ in crowd:
            tab.seat = None
            room.tabs.add(tab)
        senders = [asyncio.create_task(tab.send_pushes()) for tab, _ in crowd]
        sent_by_turn: list[int] = []  # sends so far, at each turn another task got

        async def other_room() -> None:
            while True:
                sent_by_turn.append(sum(len(socket.texts) for _, socket in crowd))
                await asyncio.sleep(0)

        watching = asyncio.create_task(other_room())
        await live.fanout.publish(code)
        await _until(lambda: all(socket.texts for _, socket in crowd))
        watching.cancel()
        for sender in senders:
            sender.cancel()
        return sent_by_turn, [len(socket.texts) for _, socket in crowd]

    sent_by_turn, texts = run(scenario)
    assert texts == [1] * 250  # each spectator its page, once
    steps = [after - before for before, after in itertools.pairwise(sent_by_turn)]
    assert max(steps) <= PUSHES_PER_TURN < 250, steps  # never the whole crowd in one turn


def test_a_rooms_move_is_planned_on_the_loop_and_what_reads_in_a_worker_thread(
    service: RoomService, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A move brings a room's few tabs along without a worker thread (rendering holds the interpreter's
    lock there as much as on the loop); what may read the database (tabs that need their whole page,
    tabs behind the events a snapshot keeps) and a crowd still go to one."""
    code, _, host = service.seats.create_room("qe", 3, {}, "Ann")
    tokens = [host, service.seats.join(code, "Bo")[1], service.seats.join(code, "Ci")[1]]
    service.seats.start(code, 0)
    in_worker: list[str] = []

    async def counted(call: Callable[..., T], *args: Any) -> T:
        in_worker.append(getattr(call, "__name__", repr(call)))
        return await run_in_threadpool(call, *args)

    monkeypatch.setattr(fanout, "run_in_threadpool", counted)

    def move() -> RoomSnapshot:
        snapshot = service.load(code)
        seat = snapshot.to_act()[0]
        action = random_legal_action(snapshot.legal(seat), random.Random(seat))
        return service.turns.act_as(code, tokens[seat], snapshot.version, action)

    async def scenario() -> list[list[str]]:
        live = LiveRooms(service, bot_delay=0)
        room = live.fanout.open(code)
        tabs = [_open_tab() for _ in range(4)]
        for seat, (tab, _) in zip([0, 1, 2, None], tabs, strict=True):
            tab.seat = seat
            room.tabs.add(tab)
        steps = []
        await live.fanout.publish(code)  # fresh tabs: their pages, the log read
        steps.append(list(in_worker))
        for _ in range(3):
            in_worker.clear()
            await live.fanout.publish(code, changed=move())
            steps.append(list(in_worker))
        in_worker.clear()
        after = move()  # as a snapshot keeping none of its events: the tabs need the log read
        await live.fanout.publish(code, changed=replace(after, recent_events=()))
        steps.append(list(in_worker))
        in_worker.clear()
        crowd = [_open_tab() for _ in range(fanout.LOOP_PLAN_TABS)]
        for tab, _ in crowd:
            tab.seat, tab.sent, tab.version = None, tabs[3][0].sent, tabs[3][0].version
            tab.events_seen = tabs[3][0].events_seen
            room.tabs.add(tab)
        await live.fanout.publish(code, changed=move())
        steps.append(list(in_worker))
        return steps

    first, *moves, behind, crowd = run(scenario)
    assert first == ["load", "plan"]
    assert moves == [[], [], []]
    assert behind == ["plan"]
    assert crowd == ["plan"]
