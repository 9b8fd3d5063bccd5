"""With Redis, the live socket caps hold across processes (issue 21): a client that opens sockets
on two processes is refused once it holds its cap (and a room once it holds its), a closed socket
frees its place everywhere, and a killed process's sockets stop counting once its lease runs out."""

from __future__ import annotations

import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import ClientConnection, connect

from tests.scale.cluster import app_env, apps
from tests.scale.services import ServiceUrls, emptied_redis, fresh_database

pytestmark = pytest.mark.timeout(180)

PER_CLIENT = 3
PER_ROOM = 2
LEASE_SECONDS = 2.0  # app_env's


@pytest.fixture
def redis_url(scale_services: ServiceUrls) -> str:
    """The test's own Redis database, emptied first."""
    return emptied_redis(scale_services.redis, 8)


def open_socket(held: ExitStack, base_url: str, code: str) -> ClientConnection | None:
    """A spectator's live socket on room ``code`` (closed with ``held`` at the latest) once it has
    its first push; None if refused."""
    try:
        url = base_url.replace("http://", "ws://") + f"/ws/rooms/{code}"
        socket = held.enter_context(connect(url, open_timeout=10))
    except InvalidStatus as refused:
        assert refused.response.status_code == 403
        return None
    socket.recv(timeout=10)
    return socket


def open_within(seconds: float, held: ExitStack, base_url: str, code: str) -> ClientConnection | None:
    """``open_socket``, tried again until ``seconds`` have passed (a closed socket is released
    on the server a moment later)."""
    deadline = time.monotonic() + seconds
    while (socket := open_socket(held, base_url, code)) is None and time.monotonic() < deadline:
        time.sleep(0.2)
    return socket


def test_socket_caps_count_the_sockets_of_every_live_process(
    scale_services: ServiceUrls, redis_url: str, tmp_path: Path
) -> None:
    with fresh_database(scale_services.postgres) as database:
        env = app_env(
            database,
            redis_url,
            BOURSE_MAX_SOCKETS_PER_CLIENT=str(PER_CLIENT),
            BOURSE_MAX_SOCKETS_PER_ROOM=str(PER_ROOM),
            BOURSE_RATE_CONNECT="off",
        )
        with (
            apps(2, env, tmp_path) as (first, second),
            httpx.Client(timeout=30) as client,
            ExitStack() as held,
        ):
            room_a, room_b = (
                client.post(
                    f"{first.url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}
                ).json()["code"]
                for _ in range(2)
            )
            first_in_a = open_socket(held, first.url, room_a)
            second_in_a = open_socket(held, second.url, room_a)
            assert first_in_a is not None and second_in_a is not None
            assert open_socket(held, first.url, room_a) is None  # room A holds its 2, one on each process

            first_in_b = open_socket(held, first.url, room_b)
            assert first_in_b is not None  # the client's third
            assert open_socket(held, second.url, room_b) is None  # a fourth, on the process holding one

            first_in_a.close()  # frees a place for the client and in room A, on the other process too
            again_in_a = open_within(5, held, second.url, room_a)
            assert again_in_a is not None
            assert open_socket(held, first.url, room_b) is None  # the client holds 3 again

            second.kill()  # it held two of the client's sockets, both in room A
            assert open_socket(held, first.url, room_a) is None  # counted until its lease runs out
            time.sleep(LEASE_SECONDS + 0.5)
            after = [open_socket(held, first.url, room_a), open_socket(held, first.url, room_b)]
            assert all(socket is not None for socket in after)
            assert open_socket(held, first.url, room_b) is None  # 3 live sockets, all on the first process
