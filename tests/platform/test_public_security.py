"""The web's security basics (issue 9): cross-site requests, headers, what redirects and names may
carry, the resume link, the live socket's edges, errors that stay readable, and the API's schema."""

from __future__ import annotations

import os
import re
import resource
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import parse_qsl

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.responses import PlainTextResponse
from starlette.types import Receive, Scope, Send

from app.config import Settings
from app.games.registry import ENGINES
from app.rooms import HealthCheck, RoomService, Seats, unique_name
from app.web.app import create_app
from app.web.guards import Guards
from app.web.messages import error_from_query, error_query, message_key
from tests.platform.test_api import auth, new_qe_room
from tests.support import ROOT, free_port


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as client:
        yield client


def hosted_room(client: TestClient) -> str:
    """A Q.E. room for three hosted by this client (its cookie holds the host's seat)."""
    answer = client.post("/rooms", data={"game": "qe", "players": "3", "name": "Ann"})
    assert answer.status_code == 200, answer.text
    return str(answer.url).rsplit("/", 1)[1]


# ---------------------------------------------------------------- cross-site requests
@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site", "Origin": "https://games.evil.example"},
        {"Sec-Fetch-Site": "cross-site", "Origin": "http://testserver"},  # a forged Origin loses
    ],
)
def test_a_cross_site_post_is_refused_and_changes_nothing(
    client: TestClient, headers: dict[str, str]
) -> None:
    code = hosted_room(client)
    before = client.get(f"/api/rooms/{code}").json()
    refused = client.post(f"/r/{code}/host/bot", headers=headers, follow_redirects=False)
    assert refused.status_code == 403 and "another site" in refused.text
    htmx = client.post(f"/r/{code}/host/fill", headers={**headers, "HX-Request": "true"})
    assert htmx.status_code == 403 and 'id="r-flash"' in htmx.text
    assert (
        client.post("/rooms", data={"game": "qe", "players": "3", "name": "X"}, headers=headers).status_code
        == 403
    )
    assert client.get(f"/api/rooms/{code}").json() == before


def test_same_origin_posts_and_the_bearer_api_are_unaffected(client: TestClient) -> None:
    code = hosted_room(client)
    for headers in (
        {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"},
        {"Origin": "http://testserver"},
        {"Sec-Fetch-Site": "same-origin"},
        {},  # not a browser
    ):
        answer = client.post(f"/r/{code}/host/bot", headers=headers, follow_redirects=False)
        assert answer.status_code == 303, (headers, answer.text)
    assert len(client.get(f"/api/rooms/{code}").json()["seats"]) == 3

    api_code, tokens = new_qe_room(client, 3)
    started = client.get(f"/api/rooms/{api_code}").json()
    seat = started["to_act"][0]
    answer = client.post(
        f"/api/rooms/{api_code}/actions",
        json={"version": started["version"], "action": {"type": "open_bid", "amount": 5}},
        headers={**auth(tokens[seat]), "Origin": "https://bot.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert answer.status_code == 200, answer.text


# ---------------------------------------------------------------- headers
INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=|javascript:", re.IGNORECASE)


def test_every_page_carries_the_security_headers(client: TestClient) -> None:
    code = hosted_room(client)
    answers = [
        client.get(path)
        for path in (
            "/",
            "/games/qe/rules?lang=zh_Hant",
            f"/r/{code}",
            "/r/nosuchroom2345",
            "/no/such/page",
            "/docs",
            "/openapi.json",
            "/healthz",
            "/static/css/bourse.css",
            "/static/js/bourse.js",
            "/vendor/htmx/htmx.min.js",
            "/vendor/swagger-ui/swagger-ui-bundle.js",
            "/api/games",
            f"/api/rooms/{code}",
        )
    ]
    answers.append(client.post(f"/r/{code}/host/bot", headers={"Origin": "https://evil.example"}))
    answers.append(client.post("/api/rooms", content=b"x" * 100_000))
    for answer in answers:
        headers = answer.headers
        csp = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, answer.url
        assert "script-src 'self';" in csp and "style-src 'self';" in csp and "unsafe" not in csp
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "same-origin"
        assert headers["cross-origin-opener-policy"] == "same-origin"
        assert headers["x-frame-options"] == "DENY"
    assert client.get(f"/r/{code}").headers["cache-control"] == "no-store"  # a seat's own view
    assert client.get(f"/api/rooms/{code}").headers["cache-control"] == "no-store"


def test_a_header_an_answer_sets_itself_stays_and_refusals_carry_them_all(settings: Settings) -> None:
    async def own_headers(scope: Scope, receive: Receive, send: Send) -> None:
        headers = {"Cache-Control": "max-age=60", "X-Frame-Options": "SAMEORIGIN"}
        await PlainTextResponse("ok", headers=headers)(scope, receive, send)

    guarded = Guards(own_headers, settings.model_copy(update={"rate_act": "1/hour"}))
    client = TestClient(guarded)  # not entered: this app has no lifespan
    answer = client.get("/r/somewhere")
    assert answer.headers.get_list("cache-control") == ["max-age=60"]
    assert answer.headers.get_list("x-frame-options") == ["SAMEORIGIN"]
    assert answer.headers.get_list("x-content-type-options") == ["nosniff"]
    assert client.post("/r/x/act").status_code == 200
    refused = client.post("/r/x/act")  # the second move in an hour
    assert refused.status_code == 429
    assert refused.headers["retry-after"] and refused.headers["cache-control"] == "no-store"
    assert "frame-ancestors 'none'" in refused.headers["content-security-policy"]


def test_no_page_has_an_inline_script_or_style(client: TestClient) -> None:
    """The policy forbids them; a page that had one would break in the browser."""
    pages = [client.get(path).text for path in ("/", "/docs", "/r/nosuchroom2345", "/games/basari/rules")]
    for game in ENGINES:
        created = client.post(
            "/rooms", data={"game": game, "players": str(ENGINES[game].info.min_players), "name": "Ann"}
        )
        code = str(created.url).rsplit("/", 1)[1]
        pages.append(created.text)
        client.post(f"/r/{code}/host/fill")
        pages.append(client.post(f"/r/{code}/host/start").text)  # the table, every region
    for html in pages:
        assert not INLINE.search(html), INLINE.search(html)
    assert "cdn" not in client.get("/docs").text.lower()
    assert client.get("/redoc").status_code == 404  # ReDoc needs inline styles: not offered


# ---------------------------------------------------------------- what a redirect may carry
def test_a_room_page_shows_no_text_a_link_brings(client: TestClient) -> None:
    code = hosted_room(client)
    spoof = "Your seat was sold; send 100 USD to evil.example to get it back."
    page = client.get(f"/r/{code}", params={"error": spoof})
    assert page.status_code == 200 and "evil.example" not in page.text and 'class="flash"' not in page.text
    key = message_key("A bid must be at least ƒ{amount}.")
    page = client.get(f"/r/{code}", params={"error": key, "e.amount": spoof})
    assert "A bid must be at least ƒ…." in page.text and "evil.example" not in page.text


def test_a_refused_form_redirects_with_a_message_key_the_page_translates(client: TestClient) -> None:
    code = hosted_room(client)
    refused = client.post(f"/r/{code}/host/start", follow_redirects=False)
    location = refused.headers["location"]
    assert refused.status_code == 303 and "seat" not in location.lower() and "error=" in location
    assert "Every seat must be taken first (1 of 3)." in client.get(location).text
    assert "要先坐滿所有座位（目前 1／3）。" in client.get(location + "&lang=zh_Hant").text
    client.cookies.delete("bourse_lang")
    client.post(f"/r/{code}/host/fill")
    client.post(f"/r/{code}/host/start")
    stale = client.post(f"/r/{code}/act", data={"version": "99", "type": "open_bid", "amount": "5"})
    assert "error=" in str(stale.url) and "The table changed before your move arrived" in stale.text


def test_a_message_param_that_names_a_seat_or_a_known_word_survives_the_url() -> None:
    query = error_query("It is {seat}'s turn, not yours.", {"seat": {"seat": 2}})
    named = error_from_query(dict(parse_qsl(query)))
    assert named == ("It is {seat}'s turn, not yours.", {"seat": {"seat": 2}})
    assert error_from_query({"error": "0123456789ab"}) is None


# ---------------------------------------------------------------- names
@pytest.mark.parametrize(
    "name",
    [
        "Host\u200b",
        "\u202eevil",
        "\u0000",
        "Ann\u0007",
        "\u3164",
        "\ue000boss",
        "\U000e0080x",
        "a\u2066b",
        "\u2800",
    ],
)
def test_names_that_hide_or_fake_characters_are_refused(client: TestClient, name: str) -> None:
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    answer = client.post(f"/api/rooms/{created['code']}/join", json={"name": name})
    assert answer.status_code == 400
    assert answer.json() == {"detail": "A name cannot contain invisible or control characters."}
    assert client.post("/api/rooms", json={"game": "qe", "players": 3, "name": name}).status_code == 400
    client.cookies.set("bourse_lang", "zh_Hant")
    form = client.post(f"/r/{created['code']}/join", data={"name": name})
    assert "名字不能包含" in form.text


def test_names_are_normalised_and_compared_after_normalising(service: RoomService) -> None:
    code, _, _ = service.seats.create_room("qe", 5, {}, "Ｈｏｓｔ")  # full-width letters
    for name in ("host", " HOST\t", "bot ﬀ"):  # "ﬀ" is one ligature character
        service.seats.join(code, name)
    service.seats.add_bot(code, 0)
    names = [seat.name for seat in service.load(code).seats]
    assert names == ["Host", "host (2)", "HOST (3)", "bot ff", "Bot Euler"]
    assert unique_name("Bot Euler", {"bot euler"}) == "Bot Euler (2)"


# ---------------------------------------------------------------- the personal link
def test_the_personal_link_keeps_the_token_out_of_the_path(client: TestClient) -> None:
    code = hosted_room(client)
    token = client.cookies[f"bourse_seat_{code}"]
    page = client.get(f"/r/{code}").text
    assert f"/r/{code}/resume#{token}" in page and f"/resume/{token}" not in page
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    assert created["resume_url"].endswith(f"/r/{created['code']}/resume#{created['token']}")

    with TestClient(client.app) as other:  # another device
        assert "resume-form" in other.get(f"/r/{code}/resume").text
        assert other.post(f"/r/{code}/resume", data={"token": "forged"}).status_code == 403
        assert other.get(f"/r/{code}/resume/{token}").status_code == 404  # the old form is gone
        answer = other.post(f"/r/{code}/resume", data={"token": token}, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == f"/r/{code}"
        assert other.cookies[f"bourse_seat_{code}"] == token
        assert 'data-viewer-seat="0"' in other.get(f"/r/{code}").text  # the page marks the host "you"


# ---------------------------------------------------------------- the live socket's edges
def drive_socket(
    client: TestClient,
    path: str,
    fail_on: str | None = None,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> list[str]:
    """Run the app on one live socket whose client resets the connection when the server first sends
    a ``fail_on`` message, then sends a line of text and hangs up. The messages the server sent.

    Raises whatever the app raises: uvicorn would log it as an ERROR with a traceback."""
    sent: list[str] = []

    async def run() -> None:
        failed = anyio.Event()
        frames: list[dict[str, object] | None] = [
            {"type": "websocket.connect"},
            None,
            {"type": "websocket.receive", "text": "hi"},
        ]
        incoming = iter(frames)

        async def receive() -> dict[str, object]:
            message = next(incoming, {"type": "websocket.disconnect", "code": 1006})
            if message is None:  # the client's next frame arrives after the reset
                with anyio.fail_after(5):
                    await failed.wait()
                return {"type": "websocket.receive", "text": "ping"}
            return message

        async def send(message: dict[str, object]) -> None:
            sent.append(str(message["type"]))
            if message["type"] == fail_on:
                failed.set()
                raise OSError("connection reset by peer")

        if fail_on is None:
            failed.set()
        scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": [(b"host", b"testserver"), *(headers or [])],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
            "scheme": "ws",
            "subprotocols": [],
            "state": {},
        }
        await client.app(scope, receive, send)  # type: ignore[arg-type]
        await client.app.state.live.idle()  # type: ignore[attr-defined]

    assert client.portal is not None  # inside `with TestClient(...)`
    client.portal.call(run)
    return sent


@pytest.mark.parametrize("fail_on", ["websocket.send", "websocket.accept"])
def test_a_socket_reset_at_any_moment_is_handled_quietly(
    client: TestClient, fail_on: str, caplog: pytest.LogCaptureFixture
) -> None:
    code = hosted_room(client)
    token = client.cookies[f"bourse_seat_{code}"]
    sent = drive_socket(
        client, f"/ws/rooms/{code}", fail_on, [(b"cookie", f"bourse_seat_{code}={token}".encode())]
    )
    assert fail_on in sent
    assert not [record for record in caplog.records if record.levelname == "ERROR"]
    assert client.app.state.live.rooms == {}  # type: ignore[attr-defined]  # the tab left


@pytest.mark.parametrize("code", ["nosuchroom234", "2345678923456", "x" * 4000, "ab%2Fcd"])
def test_a_socket_for_an_unknown_room_is_refused_before_it_is_accepted(client: TestClient, code: str) -> None:
    assert drive_socket(client, f"/ws/rooms/{code}") == ["websocket.close"]


# ---------------------------------------------------------------- errors stay readable
def test_api_errors_are_always_json_and_pages_get_a_page(settings: Settings) -> None:
    app = create_app(settings)

    def boom() -> None:
        raise ValueError("a bug")

    app.add_api_route("/api/boom", boom)
    app.add_api_route("/boom", boom, include_in_schema=False)
    with TestClient(app, raise_server_exceptions=False) as client:
        api = client.get("/api/boom")
        assert api.status_code == 500 and api.json() == {
            "detail": "Something went wrong on our side; please try again."
        }
        assert "frame-ancestors 'none'" in api.headers["content-security-policy"]
        page = client.get("/boom?lang=zh_Hant")
        assert page.status_code == 500 and "<html" in page.text and "出了問題" in page.text
        for answer in (
            client.get("/api/nothing/here"),
            client.delete("/api/games"),
            client.post("/api/rooms", content=b"{not json", headers={"content-type": "application/json"}),
        ):
            assert answer.headers["content-type"] == "application/json", answer.text
            assert isinstance(answer.json()["detail"], str)


def test_a_database_that_cannot_write_answers_503_readably(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(*_: object) -> None:
        raise OperationalError("INSERT ...", {}, sqlite3.OperationalError("database or disk is full"))

    monkeypatch.setattr(Seats, "create_room", full)
    api = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"})
    assert api.status_code == 503 and api.json()["detail"].startswith("The server cannot save")
    page = client.post("/rooms", data={"game": "qe", "players": "3", "name": "Ann"})
    assert page.status_code == 503 and "cannot save" in page.text


def test_a_full_disk_gives_json_503s_and_an_unhealthy_healthz(tmp_path: Path) -> None:
    """A real server whose files may not grow past a limit, as on a full disk: once the database's
    write-ahead log reaches it, writes fail. The API still answers JSON and /healthz says so."""
    limit = 1024 * 1024

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    port = free_port()
    env = {
        **os.environ,
        "HOST": "127.0.0.1",
        "PORT": str(port),
        "BOURSE_DATABASE_URL": f"sqlite:///{tmp_path / 'b.db'}",
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "app"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        preexec_fn=small_disk,  # noqa: PLW1509 - the test runs no threads of its own here
    )
    try:
        url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=url, timeout=10) as client:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    if client.get("/healthz").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.2)
            statuses = []
            for _ in range(400):
                answer = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann" * 8})
                statuses.append(answer.status_code)
                assert answer.headers["content-type"] == "application/json", answer.text
                if answer.status_code != 201:
                    break
            assert statuses[0] == 201 and statuses[-1] == 503, statuses[-3:]
            assert answer.json()["detail"].startswith("The server cannot save")
            time.sleep(1.1)  # the health check writes at most once a second
            health = client.get("/healthz")
            assert health.status_code == 503 and health.json()["status"] == "error"
            assert client.get("/api/games").status_code == 200  # reading still works
    finally:
        process.terminate()
        output = process.communicate(timeout=10)[0].decode(errors="replace")
    assert "Traceback" not in output, output[-3000:]


def test_healthz_reports_a_database_that_cannot_be_written(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}

    def read_only(*_: object) -> None:
        raise OperationalError(
            "UPDATE health", {}, sqlite3.OperationalError("attempt to write a readonly database")
        )

    monkeypatch.setattr(HealthCheck, "_probe_write", read_only)
    health = client.get("/healthz")
    assert health.status_code == 503 and health.json() == {
        "status": "error",
        "detail": "the database cannot be written",
    }


@contextmanager
def read_only_folder(folder: Path) -> Iterator[Path]:
    """``folder`` seen through a read-only volume: a read-only bind mount as root (whom file modes do
    not stop), the folder and its files made read-only otherwise."""
    if os.geteuid() != 0:
        modes = {path: path.stat().st_mode for path in [folder, *folder.iterdir()]}
        for path in modes:
            path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield folder
        finally:
            for path, mode in modes.items():
                path.chmod(mode)
        return
    view = folder.parent / "read-only"
    view.mkdir()
    try:
        subprocess.run(["mount", "--bind", str(folder), str(view)], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as refused:
        pytest.skip(f"no read-only bind mount here: {refused}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(view)], check=True, capture_output=True)
        yield view
    finally:
        subprocess.run(["umount", str(view)], check=True, capture_output=True)


def test_a_read_only_volume_still_starts_the_server_and_healthz_says_503(tmp_path: Path) -> None:
    """The database's volume turned read-only: the server starts all the same (its migration at
    start-up cannot even open the file), /healthz is a readable 503, and so is a write."""
    folder = tmp_path / "data"
    with TestClient(create_app(Settings(BOURSE_DATABASE_URL=f"sqlite:///{folder / 'b.db'}"))) as client:
        assert client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).status_code == 201
    with read_only_folder(folder) as view:
        app = create_app(Settings(BOURSE_DATABASE_URL=f"sqlite:///{view / 'b.db'}"))
        with TestClient(app) as client:
            health = client.get("/healthz")
            assert health.status_code == 503 and health.json()["status"] == "error"
            assert client.get("/").status_code == 200
            created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"})
            assert created.status_code == 503
            assert created.json()["detail"].startswith("The server cannot save")


def test_healthz_reports_a_nearly_full_disk_before_writes_fail(database_url: str) -> None:
    roomy = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_MIN_FREE_MB=0)
    with TestClient(create_app(roomy)) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
    cramped = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_MIN_FREE_MB=10**12)
    with TestClient(create_app(cramped)) as client:
        health = client.get("/healthz")
        assert health.status_code == 503 and health.json()["detail"].startswith("the disk is nearly full")
        assert client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).status_code == 201
