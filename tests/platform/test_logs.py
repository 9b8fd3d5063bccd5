"""The log (issue 47): ``BOURSE_LOG_LEVEL`` and ``BOURSE_LOG_FORMAT=text|json``, uvicorn's access log
following both; a JSON line carries the time, level, logger, message and the room's code where
there is one; and no line, in either format, carries a token, a cookie, a password or a private key."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.config import Settings
from app.logs import JsonFormatter, TextFormatter, configure_logging, room_of, scrubbed
from tests.scale.cluster import App, auth

SECRET = "pfZ9XesX5Dzg4O0Cm8ixv2-hW7moK1hs"  # a seat token's shape
CODE = "5u7maeqne3awq"
PEM = (
    "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg"
    + SECRET
    + "\n-----END PRIVATE KEY-----"
)
LEAKS = [
    f"GET /r/{CODE}/resume?token={SECRET} HTTP/1.1",
    f"GET /api/rooms/{CODE}?lang=en&api_key={SECRET}&v=3",
    f"the personal link http://example.org/r/{CODE}/resume#{SECRET}",
    f"Authorization: Bearer {SECRET}",
    f"headers {{'authorization': 'Bearer {SECRET}', 'cookie': 'bourse_seat_{CODE}={SECRET}; bourse_lang=en'}}",
    f"Cookie: bourse_seat_{CODE}={SECRET}; bourse_lang=en",
    f"set-cookie: bourse_seat_{CODE}={SECRET}; Path=/; SameSite=lax",
    f"could not connect to postgresql://bourse:{SECRET}@db:5432/bourse",
    f"redis://:{SECRET}@redis:6379/0 refused",
    f"(sqlite3.IntegrityError) [parameters: ('{PEM}',)]",
    f"[parameters: ('{PEM[:80]}... (1200 characters truncated) ...",  # a key cut short by SQLAlchemy
]


def record(
    message: str, *args: object, name: str = "app.web", level: int = logging.INFO
) -> logging.LogRecord:
    return logging.LogRecord(name, level, __file__, 1, message, args, None)


@pytest.mark.parametrize("leak", LEAKS)
def test_no_secret_reaches_a_line_in_either_format(leak: str) -> None:
    for formatter in (JsonFormatter(), TextFormatter()):
        line = formatter.format(record("%s", leak))
        assert SECRET not in line, (formatter, line)
        assert "[redacted]" in line
        assert "\n" not in line or isinstance(formatter, TextFormatter)


def test_what_is_not_secret_is_kept() -> None:
    assert (
        scrubbed(f"GET /r/{CODE}/join?lang=zh_Hant&v=3 HTTP/1.1")
        == f"GET /r/{CODE}/join?lang=zh_Hant&v=3 HTTP/1.1"
    )
    assert scrubbed("a bearer of good news; the cookie policy") == "a bearer of good news; the cookie policy"
    assert scrubbed("postgresql://db:5432/bourse") == "postgresql://db:5432/bourse"


def test_a_json_line_is_one_object_with_time_level_logger_message_and_room() -> None:
    line = JsonFormatter().format(
        record("bots of room %s stopped: %s", CODE, "a refusal", level=logging.WARNING)
    )
    entry = json.loads(line)
    assert entry["level"] == "WARNING"
    assert entry["logger"] == "app.web"
    assert entry["message"] == f"bots of room {CODE} stopped: a refusal"
    assert entry["room"] == CODE
    assert entry["time"].endswith("Z") and entry["time"][10] == "T"
    assert "\n" not in line


def test_an_access_line_carries_its_request_and_room_and_a_traceback_stays_on_its_line() -> None:
    access = record(
        '%s - "%s %s HTTP/%s" %d',
        "127.0.0.1:5555",
        "GET",
        f"/api/rooms/{CODE}?token={SECRET}",
        "1.1",
        200,
        name="uvicorn.access",
    )
    entry = json.loads(JsonFormatter().format(access))
    assert entry["method"] == "GET" and entry["status"] == 200 and entry["client"] == "127.0.0.1:5555"
    assert entry["path"] == f"/api/rooms/{CODE}?token=[redacted]"
    assert entry["room"] == CODE
    assert SECRET not in json.dumps(entry)
    try:
        raise RuntimeError(f"failed for Bearer {SECRET}")
    except RuntimeError:
        failing = logging.LogRecord("app", logging.ERROR, __file__, 1, "a move failed", None, sys.exc_info())
    line = JsonFormatter().format(failing)
    assert "\n" not in line
    assert "RuntimeError" in json.loads(line)["exception"]
    assert SECRET not in line


def test_the_room_is_found_only_where_a_line_names_one() -> None:
    assert room_of(f'127.0.0.1 - "WebSocket /ws/rooms/{CODE}" [accepted]') == CODE
    assert room_of(f"POST /r/{CODE}/act") == CODE
    assert room_of("GET /r/notifications") is None  # not a code: letters a code never has
    assert room_of("cleanup: deleted 3 rooms nobody came back to") is None


@pytest.fixture
def root_logging() -> Iterator[None]:
    """Put the root logger back as pytest had it after ``configure_logging``."""
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)


def test_the_level_and_format_settings_apply_to_uvicorn_too(
    root_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging(Settings(BOURSE_LOG_LEVEL="WARNING", BOURSE_LOG_FORMAT="json"))
    logging.getLogger("uvicorn.access").info('%s - "%s %s HTTP/%s" %d', "c", "GET", "/", "1.1", 200)
    logging.getLogger("app.rooms").info("not shown at WARNING")
    logging.getLogger("uvicorn.error").warning("shown")
    lines = capsys.readouterr().err.splitlines()
    assert [json.loads(line)["message"] for line in lines] == ["shown"]

    configure_logging(Settings(BOURSE_LOG_LEVEL="INFO", BOURSE_LOG_FORMAT="text"))
    logging.getLogger("uvicorn.access").info(
        '%s - "%s %s HTTP/%s" %d', "c", "GET", f"/r/{CODE}?key={SECRET}", "1.1", 200
    )
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and " INFO uvicorn.access: " in lines[0] and SECRET not in lines[0]


def test_a_new_operator_switches_the_server_to_json_and_no_line_carries_a_token(tmp_path: Path) -> None:
    """``python -m app`` as a container runs it: every line of its output, the migration's and
    uvicorn's included, is a JSON object, the access log names each request's room, and the seat
    token a client sent (as a bearer token, a cookie, and pasted into a URL) is nowhere."""
    env = {
        "BOURSE_DATABASE_URL": f"sqlite:///{tmp_path / 'bourse.db'}",
        "BOURSE_LOG_FORMAT": "json",
        "BOURSE_BOT_DELAY": "0",
        "BOURSE_CLEANUP_INTERVAL": "0",
    }
    app = App(env, tmp_path / "server.log")
    try:
        with httpx.Client(base_url=app.url, timeout=10) as client:
            created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
            code, token = created["code"], created["token"]
            client.post(f"/api/rooms/{code}/bots", headers=auth(token), json={"fill": True})
            assert client.post(f"/api/rooms/{code}/start", headers=auth(token)).status_code == 200
            client.get(f"/r/{code}", headers={"Cookie": f"bourse_seat_{code}={token}"})
            client.get(f"/r/{code}/resume?token={token}")  # a link pasted wrong
            client.get(f"/api/rooms/{code}", headers=auth(token))
    finally:
        app.stop()
    lines = (tmp_path / "server.log").read_text().splitlines()
    entries = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message"} <= entry.keys() for entry in entries)
    assert any(entry["logger"] == "alembic.runtime.migration" for entry in entries)  # the migration's child
    access = [entry for entry in entries if entry["logger"] == "uvicorn.access"]
    assert {entry["path"] for entry in access} >= {
        "/api/rooms",
        f"/api/rooms/{code}/start",
        f"/r/{code}",
        f"/r/{code}/resume?token=[redacted]",
    }
    assert all(entry["room"] == code for entry in access if code in entry["path"])
    assert token not in "\n".join(lines)
