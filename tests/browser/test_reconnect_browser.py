"""A tab that falls behind comes back by itself (issue 18, item 5).

The server disconnects a tab whose outbox overflows (close code 4408); the page reopens its socket
after a back-off, naming the version it shows, and ends where a fresh load is, chat included. A form
posted from a table that is out of date is refused as stale, and the page redraws the table.

The first test needs the server's ``LiveRooms`` to fill one tab's outbox, so it runs the app in this
process (the shared ``server_url`` server is a subprocess); a door in front of the app keeps the
reopened socket waiting while another seat moves, so the catching up is certain to be tested.
"""

from __future__ import annotations

import asyncio
import random
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from app.config import Settings
from app.games.base import random_legal_action
from app.web.app import create_app
from app.web.live import OUTBOX_LIMIT, LiveRooms
from app.web.render import version_marker
from tests.browser.helpers import create_room, wait_live
from tests.support import free_port

pytestmark = pytest.mark.browser

STALE = "The table changed before your move arrived"

# Every live socket's close code, as the page's script sees it.
RECORD_CLOSES = """() => {
  window.__closes = [];
  document.addEventListener("htmx:wsClose", (event) => window.__closes.push(event.detail.event.code));
}"""


class LiveDoor:
    """In front of the app: notes each live socket's query string, and while ``open`` is clear keeps
    new sockets waiting before the app sees them (a tab that cannot get back in yet)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.queries: list[str] = []
        self.open = threading.Event()
        self.open.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            self.queries.append(scope["query_string"].decode())
            while not self.open.is_set():
                await asyncio.sleep(0.02)
        await self.app(scope, receive, send)


@dataclass
class InProcessServer:
    url: str
    live: LiveRooms
    loop: asyncio.AbstractEventLoop
    door: LiveDoor

    def overflow_outbox(self, code: str, seat: int) -> int:
        """Push more to the seat's tabs than an outbox holds, as a room does to a tab that stopped
        reading: the server closes them with 4408. How many tabs there were."""

        async def overflow() -> int:
            tabs = [tab for tab in self.live.rooms[code].tabs if tab.seat == seat]
            for tab in tabs:
                for _ in range(OUTBOX_LIMIT + 1):
                    tab.push(version_marker(tab.version))  # news of nothing: the page stays as it is
            return len(tabs)

        return asyncio.run_coroutine_threadsafe(overflow(), self.loop).result(timeout=10)


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcessServer]:
    folder = tmp_path_factory.mktemp("reconnect")
    settings = Settings(BOURSE_DATABASE_URL=f"sqlite:///{folder / 'bourse.db'}", BOURSE_BOT_DELAY=0.05)
    app = create_app(settings)
    door = LiveDoor(app)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(door, host="127.0.0.1", port=port, log_level="warning"))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(server.serve(),), daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "the in-process server did not start"
    yield InProcessServer(f"http://127.0.0.1:{port}", app.state.live, loop, door)
    server.should_exit = True
    thread.join(timeout=15)
    loop.close()


@dataclass
class Table:
    """A started Q.E. room of Ann (the browser's seat 0), Bob (seat 1, its first auctioneer) and a bot."""

    url: str
    code: str
    ann: str
    bob: str
    rng: random.Random = field(default_factory=lambda: random.Random(18))
    moves_by_bob: int = 0

    def room(self, token: str) -> dict[str, Any]:
        answer = httpx.get(f"{self.url}/api/rooms/{self.code}", headers=auth(token))
        assert answer.status_code == 200, answer.text
        return dict(answer.json())

    def move(self, token: str) -> None:
        """One random legal move of the seat (retried while the engine refuses a sampled value)."""
        for _ in range(40):
            room = self.room(token)
            assert room["legal"], "the seat has no move"
            answer = httpx.post(
                f"{self.url}/api/rooms/{self.code}/actions",
                json={"version": room["version"], "action": random_legal_action(room["legal"], self.rng)},
                headers=auth(token),
            )
            if answer.status_code == 200:
                return
        pytest.fail("no legal move was accepted")

    def others_play(self) -> int:
        """Bob (and the bot) play until only Ann has a move; the room's version then."""
        deadline = time.monotonic() + 15
        last, since = -1, time.monotonic()
        while time.monotonic() < deadline:
            if self.room(self.bob)["legal"]:
                self.move(self.bob)
                self.moves_by_bob += 1
                continue
            room = self.room(self.ann)
            if room["version"] != last:
                last, since = room["version"], time.monotonic()
            elif room["legal"] and time.monotonic() - since > 0.5:  # the bot has answered too
                return last
            time.sleep(0.05)
        pytest.fail("the room did not come to Ann's move")


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def open_table(page: Any, url: str) -> Table:
    """Ann creates the room in the page; Bob joins and a bot sits down through the API; Bob opens."""
    invite = create_room(page, url, "qe", "Ann", 3)
    code = invite.rstrip("/").rsplit("/", 1)[1]
    ann = page.locator(".resume-link input.copy").input_value().split("#", 1)[1]
    joined = httpx.post(f"{url}/api/rooms/{code}/join", json={"name": "Bob"})
    assert joined.status_code == 201, joined.text
    table = Table(url, code, ann, joined.json()["token"])
    assert httpx.post(f"{url}/api/rooms/{code}/bots", json={}, headers=auth(ann)).status_code in (200, 201)
    assert httpx.post(f"{url}/api/rooms/{code}/start", headers=auth(ann)).status_code == 200
    return table


def at_anns_move(page: Any, url: str) -> tuple[Table, int]:
    """``open_table``, played on until Ann's move is shown: the table and its version."""
    table = open_table(page, url)
    version = table.others_play()
    wait_for_version(page, version)
    return table, version


def shown_version(page: Any) -> str | None:
    return page.locator("#r-flash").get_attribute("data-room-version")


def wait_for_version(page: Any, version: int) -> None:
    page.wait_for_selector(f'#r-flash[data-room-version="{version}"]', state="attached", timeout=15_000)


def what_it_shows(page: Any) -> dict[str, Any]:
    return {
        "regions": page.locator("#regions").inner_text(),
        "log": page.locator("#event-list li").all_inner_texts(),
        "chat": page.locator("#chat-list").inner_text(),
    }


def assert_as_a_fresh_load(context: Any, page: Any, version: int) -> None:
    fresh = context.new_page()
    try:
        fresh.goto(page.url.split("?")[0])
        wait_live(fresh)
        wait_for_version(fresh, version)
        assert what_it_shows(page) == what_it_shows(fresh)
    finally:
        fresh.close()


def test_a_tab_closed_for_lagging_comes_back_up_to_date(
    browser: Any, in_process: InProcessServer, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    try:
        table = open_table(page, in_process.url)
        version = table.others_play()
        wait_for_version(page, version)
        page.evaluate(RECORD_CLOSES)
        assert parse_qs(in_process.door.queries[-1])["v"] != [str(version)]  # the page loaded earlier

        in_process.door.open.clear()  # the page's next socket waits at the door
        assert in_process.overflow_outbox(table.code, 0) == 1
        page.wait_for_selector("body:not(.ws-online)", timeout=10_000)
        assert page.locator(".live-indicator .offline").is_visible()
        queries_before = len(in_process.door.queries)
        bob_before = table.moves_by_bob
        for _ in range(5):  # Ann plays from her other device until Bob has had a move too
            table.move(table.ann)
            caught_up = table.others_play()
            if table.moves_by_bob > bob_before:
                break
        chat = httpx.post(
            f"{in_process.url}/r/{table.code}/chat",
            data={"text": "still there?"},
            cookies={f"bourse_seat_{table.code}": table.bob},
        )
        assert chat.status_code in (204, 303), chat.text
        assert table.moves_by_bob > bob_before
        assert shown_version(page) == str(version), "the page heard of the moves while offline"
        in_process.door.open.set()

        wait_live(page)
        wait_for_version(page, caught_up)
        assert page.evaluate("window.__closes")[0] == 4408
        assert page.locator(".live-indicator .offline").is_hidden()
        reopened = in_process.door.queries[queries_before:]
        assert reopened and all(parse_qs(query)["v"] == [str(version)] for query in reopened), reopened
        page.wait_for_selector("#chat-list :text('still there?')")
        page.screenshot(path=str(artifacts / "reconnect-after-4408.png"), full_page=True)
        assert_as_a_fresh_load(context, page, caught_up)
    finally:
        in_process.door.open.set()
        context.close()


def test_a_stale_move_redraws_the_table(browser: Any, server_url: str, artifacts: Path) -> None:
    """The move goes over the open line (``app/web/moves.py``); its refusal comes back on it."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    deaf: list[Any] = []  # sockets whose pushes the page never gets (the line is open, but silent)
    sockets: list[Any] = []

    def route(socket: Any) -> None:
        server = socket.connect_to_server()
        server.on_message(
            lambda message: None if socket in deaf and not is_answer(message) else socket.send(message)
        )
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    try:
        table, version = at_anns_move(page, server_url)
        form = page.locator(".decision form[hx-post]").first
        form.wait_for()

        deaf.append(sockets[-1])
        table.move(table.ann)  # from Ann's other device: her bid goes in, this tab's form is now stale
        moved_on = table.others_play()
        assert shown_version(page) == str(version)

        form.evaluate("(form) => { form.noValidate = true; form.requestSubmit(); }")
        wait_for_version(page, moved_on)
        page.locator("#r-flash").get_by_text(STALE).wait_for()
        assert len(sockets) == 2, "the page did not reopen its line"
        page.screenshot(path=str(artifacts / "reconnect-after-stale-post.png"), full_page=True)
        assert_as_a_fresh_load(context, page, moved_on)
    finally:
        context.close()


def is_answer(message: str | bytes) -> bool:
    """The line's answer to a move (``{"move": n, ...}``), not a push."""
    return isinstance(message, str) and message.startswith('{"move"')


def bid(page: Any, table: Table) -> None:
    """Ann's decision (an opening or a sealed bid in Q.E.): an amount the rules allow, then Enter."""
    domain = next(
        domain
        for template in table.room(table.ann)["legal"]
        for domain in template.get("params", {}).values()
        if domain["kind"] == "int"
    )
    amount = max(domain["min"], 10)
    while amount in domain.get("exclude", []):  # a sealed bid may not equal the opening bid
        amount += 1
    box = page.locator(".decision form input[type=number], .decision form input[inputmode=numeric]").first
    box.fill(str(amount))
    box.press("Enter")


def test_a_move_goes_over_the_open_line_and_is_posted_when_the_line_does_not_answer(
    browser: Any, server_url: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport={"width": 360, "height": 800})
    page = context.new_page()
    posts: list[str] = []
    page.on("request", lambda request: posts.append(request.url) if request.method == "POST" else None)
    moves: list[str] = []  # what the page sent on its lines
    mute: list[Any] = []  # sockets that swallow what the page sends (a line that looks open but is dead)
    sockets: list[Any] = []

    def route(socket: Any) -> None:
        server = socket.connect_to_server()

        def from_page(message: str | bytes) -> None:
            moves.append(str(message))
            if socket not in mute:
                server.send(message)

        socket.on_message(from_page)
        server.on_message(socket.send)
        sockets.append(socket)

    page.route_web_socket(re.compile(r"/ws/rooms/"), route)
    try:
        table, version = at_anns_move(page, server_url)
        posts.clear()
        bid(page, table)
        page.wait_for_function(
            f"() => Number(document.querySelector('#r-flash').dataset.roomVersion) > {version}",
            timeout=10_000,
        )
        assert [move for move in moves if '"move"' in move], "the move did not go over the line"
        assert not [url for url in posts if url.endswith("/act")], (
            "the move was posted while the line was open"
        )
        assert page.locator(".control-error").count() == 0

        version = table.others_play()
        wait_for_version(page, version)
        mute.append(sockets[-1])
        bid(page, table)
        page.wait_for_function(
            f"() => Number(document.querySelector('#r-flash').dataset.roomVersion) > {version}",
            timeout=20_000,
        )
        assert [url for url in posts if url.endswith("/act")], "the unanswered move was not posted"
        assert len(sockets) >= 2, "the page did not reopen the line that did not answer"
        assert page.locator(".control-error").count() == 0
        page.screenshot(path=str(artifacts / "move-posted-after-silent-line-360.png"), full_page=True)
    finally:
        context.close()
