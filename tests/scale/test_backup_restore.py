"""A backup taken the README's way while the server runs mid-game, restored into a fresh database,
serves the game on from the version it was taken at, every seat's view as it was then (issue 47).
SQLite: its online backup (``sqlite3``'s ``.backup``, or Python's ``Connection.backup`` in the
image), which copies what the write-ahead log holds too. PostgreSQL: ``pg_dump --format=custom`` of
the live database and ``pg_restore --no-owner`` into an empty one (Debian's client tools, as
``scripts/services`` installs them)."""

from __future__ import annotations

import glob
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action
from tests.scale.services import fresh_database, libpq_url
from tests.support import free_port, start_server

pytestmark = [pytest.mark.both_databases, pytest.mark.timeout(300)]

# README, "Back up and restore": the image has no sqlite3 shell, so its one-liner is Python's.
SQLITE_BACKUP = "import sqlite3, sys; sqlite3.connect(sys.argv[1]).backup(sqlite3.connect(sys.argv[2]))"


def postgres_tool(name: str) -> str:
    """Debian's pg_dump or pg_restore, of the newest PostgreSQL installed."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}")) or [shutil.which(name) or ""]
    if not found[-1]:
        pytest.fail(f"{name} is not installed (Debian's postgresql-client, which scripts/services installs)")
    return found[-1]


class Table:
    """Three players of a Q.E. room on one server, by seat token."""

    def __init__(self, url: str, code: str, tokens: list[str]) -> None:
        self.api, self.code, self.tokens = f"{url}/api", code, tokens
        self.client = httpx.Client(timeout=60)

    def view(self, token: str | None) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        answer = self.client.get(f"{self.api}/rooms/{self.code}", headers=headers)
        assert answer.status_code == 200, answer.text
        room: dict[str, Any] = answer.json()
        return room

    def views(self) -> list[dict[str, Any]]:
        """Every seat's view, and a spectator's."""
        return [self.view(token) for token in [*self.tokens, None]]

    def play(self, moves: int, rng: random.Random) -> int:
        """Make ``moves`` moves, each by the seat whose turn it is; the version after them."""
        for _ in range(moves):
            seat = self.view(None)["to_act"][0]
            mine = self.view(self.tokens[seat])
            answer = self.client.post(
                f"{self.api}/rooms/{self.code}/actions",
                json={"version": mine["version"], "action": random_legal_action(mine["legal"], rng)},
                headers={"Authorization": f"Bearer {self.tokens[seat]}"},
            )
            assert answer.status_code == 200, answer.text
        version: int = self.view(None)["version"]
        return version


def new_table(url: str) -> Table:
    client = httpx.Client(timeout=60)
    created = client.post(f"{url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, tokens = created["code"], [created["token"]]
    tokens += [
        client.post(f"{url}/api/rooms/{code}/join", json={"name": n}).json()["token"] for n in ("Bob", "Cy")
    ]
    started = client.post(f"{url}/api/rooms/{code}/start", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert started.status_code == 200, started.text
    return Table(url, code, tokens)


def back_up(database_url: str, folder: Path) -> Path:
    """The README's backup of the running server's database, into ``folder``."""
    if database_url.startswith("sqlite"):
        copy = folder / "backup.db"
        source = database_url.removeprefix("sqlite:///")
        subprocess.run([sys.executable, "-c", SQLITE_BACKUP, source, str(copy)], check=True, timeout=60)
        return copy
    dump = folder / "bourse.dump"
    subprocess.run(
        [
            postgres_tool("pg_dump"),
            "--format=custom",
            f"--file={dump}",
            f"--dbname={libpq_url(database_url)}",
        ],
        check=True,
        timeout=120,
    )
    return dump


def test_a_backup_taken_mid_game_restores_and_plays_on(
    database_url: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    rng = random.Random(47)
    port = free_port()
    server = start_server(database_url, port)
    try:
        table = new_table(f"http://127.0.0.1:{port}")
        version = table.play(5, rng)
        views_then = table.views()
        backup = back_up(database_url, tmp_path)  # the server still running, its log unsynced
        assert table.play(3, rng) > version  # the original goes on past the backup
    finally:
        server.terminate()
        server.wait(timeout=15)

    restored_folder = tmp_path / "restored"
    restored_folder.mkdir()
    if database_url.startswith("sqlite"):
        shutil.copy(backup, restored_folder / "bourse.db")  # "put the file back", in a fresh folder
        play_on(f"sqlite:///{restored_folder / 'bourse.db'}", table, views_then, version, rng)
        return
    with fresh_database(request.getfixturevalue("postgres_server")) as fresh:
        subprocess.run(
            [postgres_tool("pg_restore"), "--no-owner", f"--dbname={libpq_url(fresh)}", str(backup)],
            check=True,
            timeout=120,
        )
        play_on(fresh, table, views_then, version, rng)


def play_on(
    database_url: str, table: Table, views_then: list[dict[str, Any]], version: int, rng: random.Random
) -> None:
    """Start the app on the restored database (its migrations run at start, as always): the room is
    at the backup's version, each seat sees what it saw then, and the game goes on."""
    port = free_port()
    server = start_server(database_url, port)
    try:
        restored = Table(f"http://127.0.0.1:{port}", table.code, table.tokens)
        assert restored.views() == views_then
        assert restored.view(None)["version"] == version
        assert restored.play(3, rng) == version + 3
    finally:
        server.terminate()
        server.wait(timeout=15)
