"""The checks of ``deploy/smoke`` against a running deployment, over the JSON API and a WebSocket.

python deploy/smoke_check.py create URL FILE       make a started room of a person and two bots
python deploy/smoke_check.py play URL FILE         the same, then play through URL with a live tab
python deploy/smoke_check.py still-there URL FILE  the room in FILE is there, at least as far on
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import websockets

from app.games.base import random_legal_action  # the project's virtualenv runs this script

VERSION = re.compile(r'data-room-version="(\d+)"')


def create(client: httpx.Client, url: str) -> dict[str, Any]:
    made = client.post(f"{url}/api/rooms", json={"game": "qe", "players": 3, "name": "Smoke"})
    made.raise_for_status()
    code, token = made.json()["code"], made.json()["token"]
    auth = {"Authorization": f"Bearer {token}"}
    client.post(f"{url}/api/rooms/{code}/bots", headers=auth, json={"fill": True}).raise_for_status()
    client.post(f"{url}/api/rooms/{code}/start", headers=auth).raise_for_status()
    room = client.get(f"{url}/api/rooms/{code}", headers=auth).json()
    return {"code": code, "token": token, "version": room["version"]}


def play(client: httpx.Client, url: str, room: dict[str, Any]) -> None:
    """A few of the person's moves through ``url`` (a proxy spreads them over the replicas), while a
    tab on the same address must be told of each new version."""
    code, auth = room["code"], {"Authorization": f"Bearer {room['token']}"}
    seen = {"version": -1}

    async def follow() -> None:
        address = url.replace("http://", "ws://") + f"/ws/rooms/{code}"
        async with websockets.connect(
            address, additional_headers={"Cookie": f"bourse_seat_{code}={room['token']}"}
        ) as tab:
            async for message in tab:
                for found in VERSION.findall(str(message)):
                    seen["version"] = max(seen["version"], int(found))

    async def run() -> None:
        tab = asyncio.create_task(follow())
        rng, moves, deadline = random.Random(13), 0, time.monotonic() + 90
        while moves < 3 and time.monotonic() < deadline:
            mine = await asyncio.to_thread(lambda: client.get(f"{url}/api/rooms/{code}", headers=auth).json())
            if mine["status"] != "playing":
                break
            if not mine["legal"]:
                await asyncio.sleep(0.3)  # the bots' turn
                continue
            action = random_legal_action(mine["legal"], rng)
            answer = await asyncio.to_thread(
                client.post,
                f"{url}/api/rooms/{code}/actions",
                headers=auth,
                json={"version": mine["version"], "action": action},
            )
            if answer.status_code == 200:
                moves += 1
                version = answer.json()["version"]
                until = time.monotonic() + 15
                while seen["version"] < version:
                    assert time.monotonic() < until, f"the live tab never showed version {version}"
                    await asyncio.sleep(0.05)
        tab.cancel()
        assert moves, "no move was accepted"
        print(f"  played {moves} moves; the live tab followed to version {seen['version']}")

    asyncio.run(run())


def still_there(client: httpx.Client, url: str, room: dict[str, Any]) -> None:
    answer = client.get(
        f"{url}/api/rooms/{room['code']}", headers={"Authorization": f"Bearer {room['token']}"}
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["version"] >= room["version"], (answer.json()["version"], room["version"])
    print(f"  room {room['code']} is there at version {answer.json()['version']}")


def main() -> None:
    command, url, file = sys.argv[1], sys.argv[2].rstrip("/"), Path(sys.argv[3])
    with httpx.Client(timeout=30) as client:
        if command in ("create", "play"):
            room = create(client, url)
            print(f"  room {room['code']} created at version {room['version']}")
            if command == "play":
                play(client, url, room)
                room["version"] = client.get(f"{url}/api/rooms/{room['code']}").json()["version"]
            file.write_text(json.dumps(room))
        elif command == "still-there":
            still_there(client, url, json.loads(file.read_text()))
        else:
            raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
