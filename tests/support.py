"""Running the real server in a subprocess on a loopback port (restart and browser tests)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import httpx
from fastapi.routing import APIWebSocketRoute, _IncludedRouter
from starlette.routing import BaseRoute, WebSocketRoute

from app.web.render import Table

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_server(
    database: Path | str,
    port: int,
    bot_delay: float = 0.0,
    log: IO[bytes] | int = subprocess.DEVNULL,
    settings: dict[str, str] | None = None,
) -> subprocess.Popen[bytes]:
    """Start ``python -m app`` on 127.0.0.1:port and wait until /healthz answers (``database``: a
    SQLite file, or a database URL; ``settings``: more environment variables for it)."""
    env = {
        **os.environ,
        **(settings or {}),
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "BOURSE_DATABASE_URL": database if isinstance(database, str) else f"sqlite:///{database}",
        "BOURSE_BOT_DELAY": str(bot_delay),
        "BOURSE_BOT_WINDOW_DELAY": "0",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError("the server did not start")


@contextmanager
def served(folder: Path, bot_delay: float = 0.05, settings: dict[str, str] | None = None) -> Iterator[str]:
    """A server of its own on a free loopback port (its address), with its database ``bourse.db`` and
    its output ``server.log`` in ``folder``; stopped when the block ends."""
    port = free_port()
    with (folder / "server.log").open("wb") as log:
        process = start_server(folder / "bourse.db", port, bot_delay=bot_delay, log=log, settings=settings)
        try:
            yield f"http://127.0.0.1:{port}"
        finally:
            process.terminate()
            process.wait(timeout=10)


def declared_routes(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, str, Any]]:
    """(method, path, endpoint) of every route an app declares ("WEBSOCKET" for a socket's), those of included routers too
    (FastAPI keeps an included router as one entry of ``app.routes``, its routes inside it)."""
    for route in routes:
        if isinstance(route, _IncludedRouter):
            yield from declared_routes(route.original_router.routes, prefix + route.include_context.prefix)
            continue
        if isinstance(route, WebSocketRoute | APIWebSocketRoute):
            yield "WEBSOCKET", prefix + route.path, route.endpoint
        for method in sorted(getattr(route, "methods", None) or ()):
            yield method, prefix + route.path, route.endpoint  # type: ignore[attr-defined]


def people_table(game: str, players: int, seat: int | None = None, to_act: list[int] | None = None) -> Table:
    """A playing room's table of ``players`` people, P0 to P{n-1}, all connected, P0 the host, as
    ``seat`` has it (its entry marked "you"): for tests that draw regions without a room."""
    return Table(
        code="x",
        game=game,
        status="playing",
        players=[
            {
                "seat": number,
                "name": f"P{number}",
                "is_bot": False,
                "bot_controlled": False,
                "is_host": number == 0,
                "connected": True,
                "is_you": number == seat,
            }
            for number in range(players)
        ],
        to_act=to_act or [],
        result=None,
        next_code=None,
        capacity=players,
    )
