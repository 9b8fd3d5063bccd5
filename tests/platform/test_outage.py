"""A database that goes away answers every request 503 with ``Retry-After``, reads and writes alike,
and the same requests succeed once it is back: a room page, a room's JSON and a move, each of which
reads first on the driver's own connection (``Database.peek``), whose errors are the driver's.

SQLite: the database's volume turned read-only (a WAL database cannot even be read there). PostgreSQL:
a server of the test's own, stopped while a game is on and started again."""

from __future__ import annotations

import asyncio
import glob
import logging
import os
import shutil
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import DBAPIError, OperationalError

from app.config import Settings
from app.db import Database, Statement
from app.migrate import upgrade_to_head
from app.web.app import create_app
from app.web.live.timers import Timers
from tests.platform.test_api import auth
from tests.platform.test_live_tabs import run
from tests.platform.test_public_security import read_only_folder
from tests.support import free_port

INITDB = "/usr/lib/postgresql/*/bin/initdb"


def new_game(client: TestClient, game: str) -> tuple[str, str, int]:
    """A started game of two; its code, the first seat's token and the room's version."""
    created = client.post("/api/rooms", json={"game": game, "players": 2, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    client.post(f"/api/rooms/{code}/join", json={"name": "Bob"})
    started = client.post(f"/api/rooms/{code}/start", headers=auth(token))
    assert started.status_code == 200, started.text
    return code, token, started.json()["version"]


def requests_of_a_game(client: TestClient, code: str, token: str, version: int) -> dict[str, int]:
    """The status of a room page, a room's JSON and a move (the first seat's pick, from the room
    page, as htmx sends it); each refusal must be a readable 503 with ``Retry-After``."""
    answers = {
        "page": client.get(f"/r/{code}", headers={"Cookie": f"bourse_seat_{code}={token}"}),
        "json": client.get(f"/api/rooms/{code}", headers=auth(token)),
        "move": client.post(
            f"/r/{code}/act",
            data={"version": str(version), "type": "pick", "number": "3"},
            headers={"HX-Request": "true", "Cookie": f"bourse_seat_{code}={token}"},
        ),
    }
    for what, answer in answers.items():
        if answer.status_code == 503:
            assert answer.headers["Retry-After"] == "30", what
            words = "cannot save anything" if what == "move" else "cannot reach its games"
            assert f"The server {words} right now" in answer.text, (what, answer.text[:300])
    return {what: answer.status_code for what, answer in answers.items()}


def test_a_read_only_sqlite_volume_answers_503_until_it_is_writable_again(
    tmp_path: Path, toy_game: str
) -> None:
    folder = tmp_path / "data"
    settings = Settings(BOURSE_DATABASE_URL=f"sqlite:///{folder / 'b.db'}", BOURSE_BOT_DELAY=0)
    with TestClient(create_app(settings)) as client:
        code, token, version = new_game(client, toy_game)
    with read_only_folder(folder) as view:
        on_the_volume = Settings(BOURSE_DATABASE_URL=f"sqlite:///{view / 'b.db'}", BOURSE_BOT_DELAY=0)
        with TestClient(create_app(on_the_volume), raise_server_exceptions=False) as client:
            assert requests_of_a_game(client, code, token, version) == {"page": 503, "json": 503, "move": 503}
            writable_again(view)
            assert requests_of_a_game(client, code, token, version) == {"page": 200, "json": 200, "move": 200}


def writable_again(view: Path) -> None:
    """The read-only volume ``read_only_folder`` made writable again (it is made read-only once more
    before it is unmounted, or its modes put back)."""
    if os.geteuid() == 0:
        subprocess.run(["mount", "-o", "remount,bind,rw", str(view)], check=True, capture_output=True)
    else:
        for path in [view, *view.iterdir()]:
            path.chmod(0o755 if path.is_dir() else 0o644)


class OwnPostgres:
    """A PostgreSQL server of this test's own, on loopback (as ``scripts/services`` starts one; as
    root it runs as ``nobody``), which the test stops and starts again."""

    def __init__(self, folder: Path) -> None:
        found = sorted(glob.glob(INITDB))
        if not found:
            if os.environ.get("CI"):
                pytest.fail("PostgreSQL is not installed (.ci/run installs it with scripts/services)")
            pytest.skip("PostgreSQL is not installed: sudo apt-get install postgresql")
        self.bin = Path(found[-1]).parent
        self.folder = folder
        self.port = free_port()
        self.url = f"postgresql+psycopg://bourse@127.0.0.1:{self.port}/bourse"

    def _run(self, *command: str) -> None:
        as_owner = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []
        subprocess.run([*as_owner, *command], check=True, capture_output=True, timeout=120)

    def create(self) -> None:
        self._run(str(self.bin / "initdb"), "-D", str(self.folder / "pg"), "-U", "bourse", "--auth=trust")
        self.start()
        self._run(
            str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "bourse", "bourse"
        )

    def start(self) -> None:
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder} "
            "-c fsync=off"
        )
        pg_ctl = str(self.bin / "pg_ctl")
        self._run(
            pg_ctl,
            "-D",
            str(self.folder / "pg"),
            "-l",
            str(self.folder / "pg.log"),
            "-w",
            "start",
            "-o",
            options,
        )

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.folder / "pg"), "-m", "fast", "-w", "stop")


@contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    folder = Path(tempfile.mkdtemp(prefix="bourse-outage-"))  # not under pytest's folders: nobody reads it
    folder.chmod(0o755)
    if os.geteuid() == 0:
        shutil.chown(folder, "nobody")
    server = OwnPostgres(folder)
    try:
        server.create()
        yield server
    finally:
        if (folder / "pg" / "postmaster.pid").exists():
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def test_a_stopped_postgresql_server_answers_503_until_it_is_back(toy_game: str) -> None:
    with own_postgres() as server:
        settings = Settings(BOURSE_DATABASE_URL=server.url, BOURSE_BOT_DELAY=0)
        with TestClient(create_app(settings), raise_server_exceptions=False) as client:
            code, token, version = new_game(client, toy_game)
            assert client.get(f"/r/{code}").status_code == 200  # the room is warm in memory
            server.stop()
            assert requests_of_a_game(client, code, token, version) == {"page": 503, "json": 503, "move": 503}
            server.start()
            assert requests_of_a_game(client, code, token, version) == {"page": 200, "json": 200, "move": 200}


def test_the_drivers_own_errors_are_sqlalchemys(database_url: str) -> None:
    """The hot paths that run on the driver's cursor (a move's write, a look at a room's version)
    raise what the ORM raises (a full disk fails a move's INSERT as this one fails), which the app
    answers: an ``OperationalError`` with 503."""
    upgrade_to_head(database_url)
    db = Database(database_url)
    try:
        with pytest.raises(DBAPIError), db.writing() as write:
            write.execute(Statement("INSERT INTO no_such_table (id) VALUES (:id)"), {"id": 1})
        with pytest.raises(DBAPIError), db.writing() as write:
            write.executemany(Statement("INSERT INTO no_such_table (id) VALUES (:id)"), [{"id": 1}])
        with pytest.raises(DBAPIError):
            db.peek("SELECT version FROM no_such_table WHERE code = ?", "x")
    finally:
        db.dispose()


def test_the_timers_say_once_that_they_wait_for_the_database_and_once_that_it_is_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A tick a second during an outage of minutes was a traceback a second in the log: now one
    warning when the database goes, one when it comes back, and a bug in a tick still its traceback."""
    outcomes: list[BaseException | None] = [
        *[OperationalError("SELECT 1", {}, sqlite3.OperationalError("disk I/O error"))] * 3,
        None,
        RuntimeError("a bug"),
        None,
        asyncio.CancelledError(),
    ]

    class Ticking(Timers):
        def __init__(self) -> None:  # only ``run`` is under test: no service, no sockets
            pass

        async def tick(self) -> None:
            outcome = outcomes.pop(0)
            if outcome is not None:
                raise outcome

    caplog.set_level(logging.WARNING, logger="app.web.live.timers")
    with pytest.raises(asyncio.CancelledError):
        run(lambda: Ticking().run(0))
    said = [(record.levelname, record.getMessage(), record.exc_info is not None) for record in caplog.records]
    assert said == [
        ("WARNING", "timers wait for the database: disk I/O error", False),
        ("WARNING", "timers run again: the database is back", False),
        ("ERROR", "timers failed", True),
    ]
