"""Several real app processes (``python -m app``) on one database and one Redis, on loopback ports,
and live tabs that connect to them as a browser does (the seat cookie, one WebSocket each)."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import websockets

from tests.support import ROOT, free_port

VERSION = re.compile(r'data-room-version="(\d+)"')


class App:
    """One app process; ``url`` is its address."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self._log_file = log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app"],
            cwd=ROOT,
            env={**os.environ, **env, "HOST": "127.0.0.1", "PORT": str(self.port)},
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if httpx.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"the app did not start: {log.read_text()[-2000:]}")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no goodbye to Redis or PostgreSQL."""
        self.process.kill()
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill()
        self._log_file.close()


def app_env(database_url: str, redis_url: str, **more: str) -> dict[str, str]:
    """Settings of a process of a several-process deployment, quick for tests: a dead process's
    bots and clocks pass to another within seconds."""
    return {
        "BOURSE_DATABASE_URL": database_url,
        "BOURSE_BROADCAST_URL": redis_url,
        "BOURSE_LEASE_SECONDS": "2",
        "BOURSE_BOT_DELAY": "0.05",
        "BOURSE_BOT_WINDOW_DELAY": "0",
        "BOURSE_CLOCK_TICK": "0.2",
        "BOURSE_CLEANUP_INTERVAL": "0",
        **more,
    }


@contextmanager
def apps(count: int, env: dict[str, str], folder: Path) -> Iterator[list[App]]:
    """``count`` processes, started one after the other (each migrates, then serves)."""
    started: list[App] = []
    try:
        for number in range(count):
            started.append(App(env, folder / f"app{number}.log"))
        yield started
    finally:
        for app in started:
            app.stop()


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_room(
    client: httpx.Client, urls: list[str], game: str, people: int, bots: int = 0
) -> tuple[str, list[str]]:
    """A started room of ``people`` (created on the first URL, joined round the others) and
    ``bots``; the people's tokens by seat."""
    created = client.post(
        f"{urls[0]}/api/rooms", json={"game": game, "players": people + bots, "name": "Ann"}
    )
    assert created.status_code == 201, created.text
    code, tokens = created.json()["code"], [created.json()["token"]]
    for number in range(1, people):
        joined = client.post(f"{urls[number % len(urls)]}/api/rooms/{code}/join", json={"name": f"P{number}"})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    for _ in range(bots):
        added = client.post(f"{urls[0]}/api/rooms/{code}/bots", headers=auth(tokens[0]), json={})
        assert added.status_code in (200, 201), added.text
    started = client.post(f"{urls[-1]}/api/rooms/{code}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text
    return code, tokens


class Tabs:
    """Live tabs (one WebSocket each) on their own event loop thread; each records the newest room
    version its pushes named, and reconnects (as the page does) when its socket closes."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.versions: dict[str, int] = {}
        self.texts: dict[str, list[str]] = {}
        self.reconnects: dict[str, int] = {}

    def open(self, name: str, base_url: str, code: str, token: str | None) -> None:
        url = base_url.replace("http://", "ws://") + f"/ws/rooms/{code}"
        headers = {"Cookie": f"bourse_seat_{code}={token}"} if token else {}
        self.versions[name], self.texts[name], self.reconnects[name] = -1, [], 0
        asyncio.run_coroutine_threadsafe(self._follow(name, url, headers), self.loop)

    async def _follow(self, name: str, url: str, headers: dict[str, str]) -> None:
        while True:
            try:
                async with websockets.connect(url, additional_headers=headers, open_timeout=10) as socket:
                    async for message in socket:
                        text = message if isinstance(message, str) else message.decode()
                        self.texts[name].append(text)
                        for found in VERSION.findall(text):
                            self.versions[name] = max(self.versions[name], int(found))
            except (OSError, websockets.WebSocketException):
                pass
            self.reconnects[name] += 1
            await asyncio.sleep(0.2)  # the page reconnects too (and is then sent everything afresh)

    def wait_for(self, version: int, timeout: float = 15.0, names: list[str] | None = None) -> dict[str, int]:
        """Wait until every tab (or ``names``) shows ``version``; the versions they show."""
        names = names or list(self.versions)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if all(self.versions[name] >= version for name in names):
                break
            time.sleep(0.02)
        return {name: self.versions[name] for name in names}

    def close(self) -> None:
        async def close_all() -> None:
            followers = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in followers:
                task.cancel()
            await asyncio.gather(*followers, return_exceptions=True)

        asyncio.run_coroutine_threadsafe(close_all(), self.loop).result(timeout=10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


@contextmanager
def tabs() -> Iterator[Tabs]:
    opened = Tabs()
    try:
        yield opened
    finally:
        opened.close()
