"""What one client can make the server keep: memory for rooms that do not exist, stored actions,
request bodies, and the per-client rate limits and socket caps (issue 9)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from starlette.websockets import WebSocketDisconnect

from app.config import Settings, parse_rate
from app.rooms import CODE_ALPHABET, NotFound, RoomService, new_code, normalised_action
from app.web.app import create_app
from app.web.guards import Guards
from app.web.limits import MovingWindows, classify, client_key
from app.web.live import LiveRooms
from tests.platform.test_api import auth, new_qe_room
from tests.support import declared_routes, free_port, start_server


@pytest.fixture
def real_server(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, int]]:
    """``python -m app`` on a loopback port with the rate limits off (this measures what they guard)."""
    for name in ("BOURSE_RATE_CREATE", "BOURSE_RATE_JOIN", "BOURSE_RATE_ACT", "BOURSE_RATE_CONNECT"):
        monkeypatch.setenv(name, "off")
    port = free_port()
    with (tmp_path / "server.log").open("wb") as log:
        process = start_server(tmp_path / "bourse.db", port, log=log)
        try:
            yield f"http://127.0.0.1:{port}", process.pid
        finally:
            process.terminate()
            process.wait(timeout=10)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def made_up_code(number: int) -> str:
    """Half long junk codes (the issue's 4000 characters), half codes shaped like real ones."""
    if number % 2:
        return "".join(random.choices(CODE_ALPHABET, k=4000))
    return new_code()


async def post_all(port: int, paths: list[str], body: bytes, connections: int = 16) -> list[int]:
    """POST ``body`` to every path over a few keep-alive connections; the status codes, in order.

    A bare HTTP/1.1 client: httpx spends more time per request than the server does."""
    statuses = [0] * len(paths)
    queue = list(enumerate(paths))

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while queue:
                index, path = queue.pop()
                writer.write(
                    f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\n\r\n".encode()
                    + body
                )
                head = await reader.readuntil(b"\r\n\r\n")
                statuses[index] = int(head.split(b" ", 2)[1])
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.lower().split(b"\r\n")
                    if line.startswith(b"content-length:")
                )
                await reader.readexactly(length)
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
    return statuses


@pytest.mark.timeout(180)
def test_requests_for_unknown_rooms_leave_memory_flat(real_server: tuple[str, int]) -> None:
    url, pid = real_server
    port = int(url.rsplit(":", 1)[1])

    def hammer(count: int) -> None:
        paths = [f"/api/rooms/{made_up_code(number)}/join" for number in range(count)]
        with ThreadPoolExecutor(1) as own_loop:  # not this thread's: Playwright may run a loop here
            statuses = own_loop.submit(asyncio.run, post_all(port, paths, b'{"name": "Mallory"}')).result()
        assert set(statuses) == {404}

    hammer(4000)  # warm up: the connection pool, page caches and the allocator reach their working size
    before = rss_kib(pid)
    started = time.monotonic()
    hammer(20_000)
    grown = rss_kib(pid) - before
    assert grown < 5 * 1024, f"RSS grew {grown} KiB over 20,000 requests ({time.monotonic() - started:.0f} s)"


def test_the_writer_keeps_no_lock_for_rooms_nobody_is_writing(service: RoomService, toy_game: str) -> None:
    code, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
    service.seats.join(code, "Bob")
    service.seats.start(code, 0)
    service.turns.act(code, 0, service.load(code).version, {"type": "pick", "number": 1})
    for made_up in (new_code(), "x" * 4000, "nosuchroom234"):
        with pytest.raises(NotFound):
            service.seats.join(made_up, "Mallory")
        with pytest.raises(NotFound):
            service.turns.act(made_up, 0, 1, {"type": "pick", "number": 1})
        with pytest.raises(NotFound):
            service.seats.start(made_up, 0)
    assert service.writer._locks == {}  # noqa: SLF001


# ---------------------------------------------------------------- what is stored, how large a body
FIVE_MB = "x" * (5 * 1024 * 1024)


def test_only_the_params_the_legal_template_names_are_stored(service: RoomService, toy_game: str) -> None:
    code, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
    service.seats.join(code, "Bob")
    service.seats.start(code, 0)
    junk = {"junk": "x" * 10_000, "number.extra": {"deep": [1, 2, 3]}}
    service.turns.act(code, 0, service.load(code).version, {"type": "pick", "number": "2", **junk})
    assert service.records.action_log(code) == [(0, {"type": "pick", "number": "2"})]
    assert service.records.replay(code) == service.load(code).state


def test_counts_keep_only_the_keys_their_domain_names() -> None:
    legal = [
        {
            "type": "take",
            "label": "Take",
            "params": {"gems": {"kind": "counts", "max": {"red": 2, "blue": 1}}},
        }
    ]
    action = {"type": "take", "gems": {"red": 1, "junk": FIVE_MB}, "other": 1}
    assert normalised_action(action, legal) == {"type": "take", "gems": {"red": 1}}
    assert normalised_action({"type": "fly", "to": "moon"}, legal) == {"type": "fly"}


def test_a_five_megabyte_action_is_refused_and_nothing_is_stored(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 3)
        room = client.get(f"/api/rooms/{code}").json()
        seat = room["to_act"][0]
        action = {"type": "open_bid", "amount": 5, "junk": FIVE_MB}
        answer = client.post(
            f"/api/rooms/{code}/actions",
            json={"version": room["version"], "action": action},
            headers=auth(tokens[seat]),
        )
        assert answer.status_code == 413 and answer.json() == {
            "detail": "This request is too large (at most 64 KB)."
        }

        def chunks() -> Iterator[bytes]:  # no Content-Length: the body is counted as it is read
            yield json.dumps({"version": room["version"], "action": {"type": "open_bid", "amount": 5}})[
                :-1
            ].encode()
            for _ in range(80):
                yield b" " * 65536
            yield b"}"

        streamed = client.post(
            f"/api/rooms/{code}/actions",
            content=chunks(),
            headers={**auth(tokens[seat]), "content-type": "application/json"},
        )
        assert streamed.status_code == 413 and "too large" in streamed.json()["detail"]

        client.cookies.set(f"bourse_seat_{code}", tokens[seat])
        form = client.post(
            f"/r/{code}/act?lang=zh_Hant",
            data={"version": str(room["version"]), "type": "open_bid", "amount": "5", "junk": FIVE_MB},
        )
        assert form.status_code == 413 and "太大" in form.text
        htmx = client.post(
            f"/r/{code}/act",
            content=chunks(),
            headers={"HX-Request": "true", "content-type": "application/x-www-form-urlencoded"},
        )
        assert htmx.status_code == 413 and 'id="r-flash"' in htmx.text

        assert (
            client.post("/api/rooms", json={"game": "qe", "players": 3, "name": FIVE_MB}).status_code == 413
        )
        assert client.get(f"/api/rooms/{code}").json()["version"] == room["version"]
        assert client.app.state.service.records.action_log(code) == []  # type: ignore[attr-defined]


# ---------------------------------------------------------------- rate limits and socket caps
def limited(settings: Settings, **limits: object) -> Settings:
    return settings.model_copy(update=limits)


def test_a_burst_of_room_creations_gets_429_and_another_client_is_unaffected(settings: Settings) -> None:
    app = create_app(limited(settings, rate_create="5/hour"))
    body = {"game": "qe", "players": 3, "name": "Ann"}
    with (
        TestClient(app, client=("203.0.113.5", 40000)) as mallory,
        TestClient(app, client=("198.51.100.7", 40000)) as alice,
    ):
        assert [mallory.post("/api/rooms", json=body).status_code for _ in range(5)] == [201] * 5
        refused = mallory.post("/api/rooms", json=body)
        assert refused.status_code == 429
        assert refused.json()["detail"].startswith("Too many requests")
        assert 3500 <= int(refused.headers["retry-after"]) <= 3600  # until the first is an hour old
        form = mallory.post("/rooms?lang=zh_Hans", data={"game": "qe", "players": "3", "name": "Ann"})
        assert form.status_code == 429 and "请求太多" in form.text
        assert alice.post("/api/rooms", json=body).status_code == 201
        assert alice.post("/rooms", data={"game": "qe", "players": "3", "name": "Al"}).status_code == 200
        rooms = app.state.service.db  # five rooms from Mallory, two from Alice, no more
        with rooms.read() as session:
            assert session.execute(text("SELECT count(*) FROM rooms")).scalar_one() == 7


def test_joining_and_acting_are_limited_per_client(settings: Settings) -> None:
    app = create_app(limited(settings, rate_join="3/minute", rate_act="2/minute"))
    with TestClient(app, client=("203.0.113.5", 40000)) as client:
        code = client.post("/api/rooms", json={"game": "qe", "players": 5, "name": "Ann"}).json()["code"]
        joins = [client.post(f"/api/rooms/{code}/join", json={"name": "B"}).status_code for _ in range(4)]
        assert joins == [201, 201, 201, 429]
        assert client.post(f"/r/{code}/join", data={"name": "C"}).status_code == 429
        acts = [client.post(f"/api/rooms/{code}/start").status_code for _ in range(3)]
        assert acts == [403, 403, 429]
        assert client.get(f"/api/rooms/{code}").status_code == 200  # reads are not limited


def test_every_route_that_writes_counts_against_a_limit(settings: Settings) -> None:
    writes = [
        (method, path)
        for method, path, _ in declared_routes(create_app(settings).routes)
        if method in ("POST", "PUT", "PATCH", "DELETE")
    ]
    assert ("POST", "/r/{code}/act") in writes and ("POST", "/api/rooms/{code}/actions") in writes
    for method, path in writes:
        assert classify(method, re.sub(r"\{[^}]+\}", "x", path)), (method, path)


def test_live_sockets_are_capped_per_client_and_per_room(settings: Settings) -> None:
    app = create_app(
        limited(settings, max_sockets_per_client=2, max_sockets_per_room=3, rate_connect="3/minute")
    )
    with (
        TestClient(app, client=("203.0.113.5", 40000)) as mallory,
        TestClient(app, client=("198.51.100.7", 40000)) as alice,
        contextlib.ExitStack() as stack,
    ):
        code = alice.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()["code"]
        for _ in range(2):
            stack.enter_context(mallory.websocket_connect(f"/ws/rooms/{code}")).receive_text()
        with pytest.raises(WebSocketDisconnect), mallory.websocket_connect(f"/ws/rooms/{code}") as third:
            third.receive_text()
        stack.enter_context(alice.websocket_connect(f"/ws/rooms/{code}")).receive_text()
        with pytest.raises(WebSocketDisconnect), alice.websocket_connect(f"/ws/rooms/{code}") as fourth:
            fourth.receive_text()  # the room is full
        stack.close()
        with mallory.websocket_connect(f"/ws/rooms/{code}") as again:  # closed sockets free their place
            again.receive_text()
        with pytest.raises(WebSocketDisconnect), mallory.websocket_connect(f"/ws/rooms/{code}") as fast:
            fast.receive_text()  # the fourth connect in a minute
    limits = next(m.limits for m in iter_middleware(app) if isinstance(m, Guards))
    assert limits.sockets.clients == {} and limits.sockets.rooms == {}


def iter_middleware(app: object) -> Iterator[object]:
    layer = getattr(app, "middleware_stack", None)
    while layer is not None:
        yield layer
        layer = getattr(layer, "app", None)


def test_clients_are_told_apart_by_address_and_ipv6_by_its_64_block() -> None:
    def key(host: str) -> str:
        return client_key({"client": (host, 1)})

    assert key("2001:db8:1:2:aaaa::1") == key("2001:db8:1:2:bbbb::2") != key("2001:db8:1:3::1")
    assert key("::ffff:203.0.113.5") == key("203.0.113.5") != key("203.0.113.6")


def test_the_memory_limiter_counts_a_moving_window_and_forgets_clients_whose_window_emptied() -> None:
    from limits import RateLimitItemPerSecond
    from limits.aio.strategies import MovingWindowRateLimiter

    now = [1000.0]
    windows = MovingWindows(max_keys=1000, clock=lambda: now[0])
    limiter = MovingWindowRateLimiter(windows)
    two_a_second = RateLimitItemPerSecond(parse_rate("2/second").count, 1)

    async def hit(client: str) -> bool:
        return await limiter.hit(two_a_second, client)

    async def hits() -> None:
        for number in range(5000):
            assert await hit(f"client {number}")
            now[0] += 0.001
        assert len(windows.windows) <= 1000
        assert await hit("a") and await hit("a") and not await hit("a")
        now[0] += 0.6  # a token bucket would have a token again; the window still holds both hits
        assert not await hit("a")
        now[0] += 0.41
        assert await hit("a")
        now[0] += 10
        await hit("b")
        assert list(windows.windows) == [two_a_second.key_for("b")]

    with ThreadPoolExecutor(1) as own_loop:  # not this thread's: Playwright may run a loop here
        own_loop.submit(asyncio.run, hits()).result()


def test_an_untrusted_proxy_is_reported_once(settings: Settings, caplog: pytest.LogCaptureFixture) -> None:
    """Behind a proxy FORWARDED_ALLOW_IPS does not name, every visitor is the proxy: one client."""
    with TestClient(create_app(settings), client=("172.17.0.1", 40000)) as client:
        for _ in range(3):
            client.post("/api/rooms", json={}, headers={"X-Forwarded-For": "203.0.113.5"})
    warnings = [r for r in caplog.records if "FORWARDED_ALLOW_IPS" in r.getMessage()]
    assert len(warnings) == 1 and "172.17.0.1" in warnings[0].getMessage()


def test_nothing_is_kept_per_room_once_its_bots_and_tabs_are_done(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
        assert client.portal is not None  # inside `with TestClient(...)`
        for _ in range(3):
            created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
            code, token = created["code"], created["token"]
            client.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=auth(token))
            with client.websocket_connect(f"/ws/rooms/{code}") as tab:
                tab.receive_text()
            client.post(f"/api/rooms/{code}/start", headers=auth(token))
            client.post(f"/api/rooms/{code}/bots", json={"seat": 0}, headers=auth(token))
            client.portal.call(live.idle)
            assert client.get(f"/api/rooms/{code}").json()["status"] == "finished"
        assert live.rooms == {} and live.bots._tasks == {} and live.bots._rerun == set()  # noqa: SLF001
        assert client.app.state.service.writer._locks == {}  # type: ignore[attr-defined]  # noqa: SLF001
