"""What a move costs on the HTTP path, in process: the server CPU of one form post (``POST /r/{code}/act``
as htmx sends it, seat cookie, ``HX-Request``) and of the lookups the live benchmark makes around it
(``GET /api/rooms/{code}``), through the whole ASGI stack (framework, guards, routing, form, seat, apply
and commit) but with no tab open, so nothing is rendered or pushed.

Run: ``.venv/bin/python -m benchmarks.bench_post [--game qe] [--players 5] [--rooms 20] [--moves 400]``.
The app is called as uvicorn calls it (one ASGI ``scope``, ``receive`` and ``send`` per request) on a
fresh SQLite file; the CPU is the process's (``time.process_time``: every thread, the writer's too)
over the measured moves, so the machine's other load moves it less than wall time. It prints figures
and asserts nothing. To compare commits, run this file with ``PYTHONPATH`` at each exported commit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from benchmarks.live_client import form_fields


async def call(
    app: Any, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, bytes]:
    """One HTTP request through the ASGI app; its status and body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(name.lower().encode(), value.encode()) for name, value in headers.items()],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }
    chunks = [body]
    status = 0
    answer = bytearray()

    async def receive() -> dict[str, Any]:
        if chunks:
            return {"type": "http.request", "body": chunks.pop(), "more_body": False}
        await asyncio.Event().wait()  # the client never disconnects first
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            answer.extend(message.get("body", b""))

    await app(scope, receive, send)
    return status, bytes(answer)


async def run(options: argparse.Namespace) -> None:
    from app.config import get_settings
    from app.games.base import random_legal_action
    from app.web.app import create_app

    app = create_app(get_settings())
    service = app.state.service
    rooms = []
    for _ in range(options.rooms):
        code, _, host = service.seats.create_room(options.game, options.players, {}, "P0")
        tokens = [host] + [service.seats.join(code, f"P{number}")[1] for number in range(1, options.players)]
        service.seats.start(code, 0)
        rooms.append((code, tokens))
    rng = random.Random(1)
    host_header = {"host": "127.0.0.1:8000", "origin": "http://127.0.0.1:8000"}

    async def one_move(code: str, tokens: list[str]) -> int:
        """Two lookups (the spectator view for whose turn it is, then that seat's legal actions; the live
        benchmark makes ~1.5 a move), then the post."""
        status, body = await call(app, "GET", f"/api/rooms/{code}", host_header)
        room = json.loads(body)
        if not room["to_act"]:
            return 0
        seat = room["to_act"][0]
        bearer = {**host_header, "authorization": f"Bearer {tokens[seat]}"}
        status, body = await call(app, "GET", f"/api/rooms/{code}", bearer)
        legal = json.loads(body)["legal"]
        fields = [("version", str(room["version"])), *form_fields(random_legal_action(legal, rng))]
        headers = {
            **host_header,
            "content-type": "application/x-www-form-urlencoded",
            "hx-request": "true",
            "cookie": f"bourse_seat_{code}={tokens[seat]}",
        }
        status, _ = await call(app, "POST", f"/r/{code}/act", headers, urlencode(fields).encode())
        return 1 if status == 200 else 0

    async with app.router.lifespan_context(app):
        for code, tokens in rooms:  # warm up: imports, caches, the connection pool
            await one_move(code, tokens)
        accepted = 0
        started_cpu, started_wall = time.process_time(), time.perf_counter()
        while accepted < options.moves:
            before = accepted
            for code, tokens in rooms:
                accepted += await one_move(code, tokens)
            if accepted == before:  # every game is over: measure what was played
                break
        cpu, wall = time.process_time() - started_cpu, time.perf_counter() - started_wall
    print(
        f"{options.game} {options.players}p, {options.rooms} rooms: {accepted} moves, "
        f"{cpu / accepted * 1000:.2f} ms CPU per move (2 lookups + the form post), "
        f"{wall / accepted * 1000:.2f} ms wall"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="qe")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--rooms", type=int, default=20)
    parser.add_argument("--moves", type=int, default=400)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        os.environ.update(
            {
                "BOURSE_DATABASE_URL": f"sqlite:///{Path(folder) / 'bench.db'}",
                "BOURSE_BOT_DELAY": "0",
                "BOURSE_RATE_ACT": "off",
                "BOURSE_RATE_CREATE": "off",
                "BOURSE_RATE_JOIN": "off",
                "BOURSE_CLEANUP_INTERVAL": "0",
            }
        )
        asyncio.run(run(options))


if __name__ == "__main__":
    main()
