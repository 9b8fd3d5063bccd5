"""The floor of this stack: the least a Starlette WebSocket fan-out on uvicorn can do.

Sockets of a room connect to ``/ws/{room}``. A new socket gets the ~2 KB fragment stamped with the
room's current version; on each message (a version number) received on any socket, the fragment
stamped with that version goes to every socket of the room, one after another. No database, no
rendering: ``bench_live`` drives it with the same client as Bourse and prints Bourse's figures as
ratios to these.

With ``FLOOR_DURABLE=1`` it is the *durable* floor: each move is first committed to SQLite, as
Bourse commits one (WAL, synchronous NORMAL, ``BEGIN IMMEDIATE``, in a worker thread; the database
``BOURSE_DATABASE_URL`` names), and only then sent: the least a move that is kept must cost.

Run: ``HOST=127.0.0.1 PORT=8001 .venv/bin/python -m benchmarks.floor_server`` (one process).
"""

from __future__ import annotations

import os
import sqlite3
import threading

import uvicorn
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

ROW = '<li class="event"><span class="who">Player</span> bid <b>1,234</b> on the <i>asset</i></li>\n'
FRAGMENT = '<section id="r-log" class="region" hx-swap-oob="true"><ol>\n' + ROW * 24 + "</ol></section>"

rooms: dict[str, set[WebSocket]] = {}
versions: dict[str, str] = {}
DURABLE = os.environ.get("FLOOR_DURABLE") == "1"
_local = threading.local()  # a connection per worker thread, as a pool gives one


def _database() -> sqlite3.Connection:
    connection: sqlite3.Connection | None = getattr(_local, "connection", None)
    if connection is None:
        path = os.environ.get("BOURSE_DATABASE_URL", "sqlite:///floor.db").removeprefix("sqlite:///")
        connection = _local.connection = sqlite3.connect(path, isolation_level=None)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("PRAGMA busy_timeout=5000")
        connection.execute("CREATE TABLE IF NOT EXISTS moves (room TEXT, version INTEGER, body TEXT)")
    return connection


def commit(room: str, version: str, body: str) -> None:
    """One move appended durably, as Bourse appends an action (one write transaction)."""
    database = _database()
    database.execute("BEGIN IMMEDIATE")
    database.execute("INSERT INTO moves VALUES (?, ?, ?)", (room, int(version), body))
    database.execute("COMMIT")


def stamped(version: str) -> str:
    return f'{FRAGMENT}<section id="r-flash" data-room-version="{version}" hx-swap-oob="true"></section>'


async def room_socket(socket: WebSocket) -> None:
    room = socket.path_params["room"]
    await socket.accept()
    members = rooms.setdefault(room, set())
    members.add(socket)
    try:
        await socket.send_text(stamped(versions.get(room, "0")))
        while True:
            text = await socket.receive_text()
            if not text.isdigit():
                continue
            if DURABLE:
                await run_in_threadpool(commit, room, text, FRAGMENT)
            versions[room] = text
            message = stamped(text)
            for member in list(members):
                try:
                    await member.send_text(message)
                except Exception:  # a socket closing meanwhile: its own handler removes it
                    continue
    except WebSocketDisconnect:
        pass
    finally:
        members.discard(socket)
        if not members:
            rooms.pop(room, None)
            versions.pop(room, None)


async def healthz(_: Request) -> PlainTextResponse:
    return PlainTextResponse("ok")


app = Starlette(routes=[WebSocketRoute("/ws/{room}", room_socket), Route("/healthz", healthz)])


if __name__ == "__main__":
    uvicorn.run(
        app,
        host=os.environ.get("HOST", "127.0.0.1"),
        port=int(os.environ.get("PORT", "8001")),
        log_level="warning",
        # uvicorn's sockets as ``python -m app`` has them (app/__main__.py): the least a socket can
        # hold, and no compression (the client offers it, as browsers do)
        ws="websockets-sansio",
        ws_per_message_deflate=False,
        ws_ping_interval=20,
    )
