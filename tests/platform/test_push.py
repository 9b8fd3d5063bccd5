"""Web Push (issue 23): a seat that opted in is told, on a push service the test runs on loopback
(tests/push_service.py decrypts each push with the browser's keys and checks its VAPID signature),
when its turn comes, in its language, with the words of its own status line, once per turn; a clock
running out and the game's end are told once too; a 410 forgets the subscription, and so do a few
failures in a row; turning it off, leaving the seat or the room's deletion stops it; a move answers
as fast whatever the push service does, and a push service that never answers holds up no other's
pushes. The server posts only to allowed push services whose names resolve to public addresses,
checked as a player opts in and again as each push is sent (the resolver is the test's), never to a
host spelled as a number; the VAPID private key shows in no repr or log."""

from __future__ import annotations

import logging
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.cleanup import sweep_once
from app.config import DEFAULT_PUSH_SERVICES, Settings
from app.db import Database
from app.models import ServerKey, utcnow
from app.rooms import RoomService, wallclock
from app.rooms.push import VAPID_PUBLIC_KEY
from app.rooms.push_services import PushServices, Service, public, system_resolve
from app.rooms.vapid import Vapid, load_vapid, new_private_pem, public_key_of
from app.web import push as push_module
from app.web.app import create_app
from app.web.push import PushSender
from tests.platform.test_api import auth
from tests.push_service import Listener, PushService


@pytest.fixture
def push_service() -> Iterator[PushService]:
    service = PushService()
    service.start()
    yield service
    service.stop()


@pytest.fixture
def push_settings(database_url: str, push_service: PushService) -> Settings:
    return Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_PUSH_SERVICES=push_service.origin,
        BOURSE_PUSH_TIMEOUT=2,
    )


@pytest.fixture
def client(push_settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(push_settings)) as client:
        yield client


def sender_of(client: TestClient) -> PushSender:
    sender: PushSender = client.app.state.push  # type: ignore[attr-defined]
    return sender


def service_of(client: TestClient) -> RoomService:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    return service


def as_seat(client: TestClient, code: str, token: str, locale: str = "en") -> None:
    """The browser's cookies: this seat of the room, this language."""
    client.cookies.clear()
    client.cookies.set(f"bourse_seat_{code}", token)
    client.cookies.set("bourse_lang", locale)


def subscribe(
    client: TestClient, code: str, token: str, subscription: dict[str, Any], locale: str = "en"
) -> Any:
    as_seat(client, code, token, locale)
    answer = client.post(f"/r/{code}/push", json=subscription)
    client.cookies.clear()
    return answer


def new_room(client: TestClient, game: str, players: int, clock: int = 0) -> tuple[str, list[str]]:
    created = client.post(
        "/api/rooms", json={"game": game, "players": players, "name": "Ann", "clock": clock}
    )
    assert created.status_code == 201, created.text
    code, tokens = created.json()["code"], [created.json()["token"]]
    for name in ("Bob", "Cy", "Di")[: players - 1]:
        joined = client.post(f"/api/rooms/{code}/join", json={"name": name})
        tokens.append(joined.json()["token"])
    return code, tokens


def start(client: TestClient, code: str, tokens: list[str]) -> None:
    started = client.post(f"/api/rooms/{code}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text


def pick(client: TestClient, code: str, tokens: list[str], seat: int, number: int = 1) -> float:
    """Seat ``seat`` picks in the toy game; the seconds the move took to answer."""
    version = client.get(f"/api/rooms/{code}", headers=auth(tokens[seat])).json()["version"]
    began = time.perf_counter()
    answer = client.post(
        f"/api/rooms/{code}/actions",
        json={"version": version, "action": {"type": "pick", "number": number}},
        headers=auth(tokens[seat]),
    )
    took = time.perf_counter() - began
    assert answer.status_code == 200, answer.text
    return took


def status_line(client: TestClient, code: str, token: str, locale: str) -> str:
    """The words of the seat's status line, as its page shows them."""
    as_seat(client, code, token, locale)
    page = client.get(f"/r/{code}").text
    client.cookies.clear()
    reader = PromptText()
    reader.feed(page)
    assert reader.depth == 0 and reader.parts
    return " ".join("".join(reader.parts).split())


class PromptText(HTMLParser):
    """The text of a page's ``.prompt-text`` element (its status line's words), nested tags and all."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # elements open inside it (0: outside)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.depth or "prompt-text" in (dict(attrs).get("class") or "").split():
            self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if self.depth:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        if self.depth:
            self.parts.append(data)


def test_a_seat_is_told_when_its_turn_comes_in_its_language_as_its_status_line_says_once(
    client: TestClient, push_service: PushService
) -> None:
    code, tokens = new_room(client, "qe", 3)
    start(client, code, tokens)
    sender = sender_of(client)
    auctioneer = service_of(client).load(code).to_act()[0]
    bidder = (auctioneer + 1) % 3
    assert (
        subscribe(client, code, tokens[bidder], push_service.subscription("bob"), "zh_Hant").status_code
        == 204
    )
    mine = client.get(f"/api/rooms/{code}", headers=auth(tokens[auctioneer])).json()
    opened = client.post(
        f"/api/rooms/{code}/actions",
        json={"version": mine["version"], "action": {"type": "open_bid", "amount": 1}},
        headers=auth(tokens[auctioneer]),
    )
    assert opened.status_code == 200, opened.text
    assert sender.wait_idle()
    received = push_service.wait_for(1, "bob")
    assert len(received) == 1
    push = received[0]
    assert push["title"] == "輪到你了：量化寬鬆"
    assert push["lang"] == "zh-Hant"
    assert push["url"] == f"/r/{code}"
    assert push["body"] == status_line(client, code, tokens[bidder], "zh_Hant")  # his own sealed bid
    assert "秘密出價" in push["body"]
    # The other bidder bids, and the table is pushed again and again: no new decision of his.
    other = 3 - auctioneer - bidder
    mine = client.get(f"/api/rooms/{code}", headers=auth(tokens[other])).json()
    amount = next(n for n in (2, 3) if n != 1)
    client.post(
        f"/api/rooms/{code}/actions",
        json={"version": mine["version"], "action": {"type": "bid", "amount": amount}},
        headers=auth(tokens[other]),
    )
    for _ in range(3):
        sender.note(code, None)
        assert sender.wait_idle()
    assert len(push_service.browsers["bob"].received) == 1
    post = push_service.posts[-1]
    assert post.vapid_key == sender.vapid.public
    assert post.audience == push_service.origin
    assert post.headers["ttl"] == "86400"


def test_each_new_decision_is_told_once_and_a_decision_already_shown_is_not(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    code, tokens = new_room(client, toy_game, 2)
    start(client, code, tokens)
    sender = sender_of(client)
    # Bob opts in while his first pick is before him: he is looking at it, so it is not pushed.
    assert subscribe(client, code, tokens[1], push_service.subscription("bob")).status_code == 204
    sender.note(code, None)
    assert sender.wait_idle()
    assert push_service.browsers["bob"].received == []
    pick(client, code, tokens, 1)
    pick(client, code, tokens, 0)  # round 2: a new decision for each
    assert sender.wait_idle()
    assert [push["title"] for push in push_service.wait_for(1, "bob")] == ["Your turn: Sealed guess"]
    pick(client, code, tokens, 0)  # Ann picks: Bob's decision is the same one
    assert sender.wait_idle()
    assert len(push_service.browsers["bob"].received) == 1
    pick(client, code, tokens, 1)  # round 3
    assert sender.wait_idle()
    assert len(push_service.wait_for(2, "bob")) == 2


@pytest.mark.both_databases
def test_a_room_nobody_subscribed_to_is_not_looked_at_after_its_moves(
    client: TestClient, push_service: PushService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Most rooms have no subscription: the move's own write says so (its first read, in the same
    transaction), and the sender then reads nothing for the room. Once a seat opts in, the next
    move's write says so and its new decision is told."""
    code, tokens = new_room(client, toy_game, 2)
    start(client, code, tokens)
    sender = sender_of(client)
    assert sender.wait_idle()
    looked_at: list[int] = []
    told: list[bool] = []
    of_room, note = sender.store.of_room, sender.note

    def counted_of_room(room: int) -> Any:
        looked_at.append(room)
        return of_room(room)

    def counted_note(code: str, after: Any, subscribed: bool) -> None:
        told.append(subscribed)
        note(code, after, subscribed)

    monkeypatch.setattr(sender.store, "of_room", counted_of_room)
    monkeypatch.setattr(service_of(client).writer, "committed", counted_note)
    pick(client, code, tokens, 1)
    pick(client, code, tokens, 0)  # round 2: a new decision for each, and nobody to tell
    assert sender.wait_idle()
    assert told == [False, False] and looked_at == []
    assert subscribe(client, code, tokens[1], push_service.subscription("bob")).status_code == 204
    pick(client, code, tokens, 1)
    pick(client, code, tokens, 0)  # round 3: Bob's new decision is told
    assert sender.wait_idle()
    assert told == [False, False, True, True] and looked_at
    assert [push["title"] for push in push_service.wait_for(1, "bob")] == ["Your turn: Sealed guess"]


def test_a_queued_room_is_told_from_its_newest_snapshot_not_the_one_that_queued_it(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    """Bob's turn comes and queues the room; he decides before the sender gets to it: the sender
    tells the room as it is then (nobody waits for Bob), not as it was when queued."""
    code, tokens = new_room(client, toy_game, 2)
    start(client, code, tokens)
    service = service_of(client)
    sender_of(client).stop()  # the app's sender would tell round 2 the moment it comes: ours only
    sender = PushSender(service, sender_of(client).vapid)  # its worker is run by hand below
    assert subscribe(client, code, tokens[1], push_service.subscription("bob")).status_code == 204
    sender.note(code, service.load(code))  # round 1, as Bob's page already shows it
    pick(client, code, tokens, 1)
    pick(client, code, tokens, 0)
    sender.note(code, service.load(code))  # round 2: a new decision for Bob queues the room
    pick(client, code, tokens, 1)  # ... which he makes before the sender runs
    sender.note(code, service.load(code))
    sender._rooms.put(None)  # after the queued room, the worker stops
    sender._run()
    assert push_service.browsers["bob"].received == []
    pick(client, code, tokens, 0)  # round 3: a decision Bob has not made, told once
    sender.note(code, service.load(code))
    sender._rooms.put(None)
    sender._run()
    assert sender.wait_idle()
    assert [push["title"] for push in push_service.wait_for(1, "bob")] == ["Your turn: Sealed guess"]
    sender.stop()


def test_the_end_of_the_game_is_told_once_to_everyone_subscribed(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    code, tokens = new_room(client, toy_game, 2)
    for seat, name in enumerate(("ann", "bob")):
        subscribe(client, code, tokens[seat], push_service.subscription(name), "zh_Hans")
    start(client, code, tokens)
    for _ in range(3):
        pick(client, code, tokens, 0, 1)
        pick(client, code, tokens, 1, 2)
    sender = sender_of(client)
    assert sender.wait_idle()
    sender.note(code, None)
    assert sender.wait_idle()
    for name in ("ann", "bob"):
        received = push_service.wait_for(4, name)
        ends = [push for push in received if push["title"].startswith("游戏结束")]
        assert len(ends) == 1, received
        assert ends[0]["body"] == "胜者：Bob"


def test_a_clock_running_out_is_told_once_per_decision(
    client: TestClient, push_service: PushService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [int(time.time() * 1000)]
    monkeypatch.setattr(wallclock, "now_ms", lambda: now[0])
    code, tokens = new_room(client, toy_game, 2, clock=86400)
    subscribe(client, code, tokens[1], push_service.subscription("bob"))
    start(client, code, tokens)
    sender = sender_of(client)
    assert sender.wait_idle()
    assert len(push_service.wait_for(1, "bob")) == 1  # the first turn
    now[0] += 17 * 3600 * 1000  # 7 hours left: not yet the last quarter
    sender.warn_clocks()
    assert sender.wait_idle()
    assert len(push_service.browsers["bob"].received) == 1
    service_of(client).clocks.pause(code, 0)  # the host pauses the table's clock overnight
    now[0] += 12 * 3600 * 1000
    sender.warn_clocks()
    assert sender.wait_idle()
    assert len(push_service.browsers["bob"].received) == 1
    service_of(client).clocks.resume(code, 0)  # 7 hours left again
    now[0] += 2 * 3600 * 1000  # 5 hours left
    sender.warn_clocks()
    sender.warn_clocks()
    assert sender.wait_idle()
    received = push_service.wait_for(2, "bob")
    assert [push["title"] for push in received[1:]] == ["Less than 5 hours left: Sealed guess"]
    pick(client, code, tokens, 1)  # decided: no warning for it any more
    now[0] += 4 * 3600 * 1000
    sender.warn_clocks()
    assert sender.wait_idle()
    assert len(push_service.browsers["bob"].received) == 2


@pytest.mark.both_databases
def test_an_endpoint_the_push_service_calls_gone_is_forgotten_everywhere_and_only_that(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    service = service_of(client)
    code, tokens = new_room(client, toy_game, 3)
    other, others = new_room(client, toy_game, 2)
    subscribe(client, code, tokens[0], push_service.subscription("ann"))
    subscribe(client, other, others[0], push_service.subscription("ann"))  # the same browser, elsewhere
    subscribe(client, code, tokens[1], push_service.subscription("bob"))
    subscribe(client, code, tokens[2], push_service.subscription("cy"))
    push_service.gone.add("ann")  # 410
    del push_service.browsers["bob"]  # 404: the service no longer knows it
    push_service.failing.add("cy")  # 500: its trouble, not the subscription's
    start(client, code, tokens)
    assert sender_of(client).wait_idle()
    assert sorted((post.browser, post.status) for post in push_service.posts) == [
        ("ann", 410),
        ("bob", 404),
        ("cy", 500),
    ]
    assert [r.endpoint for r, *_ in service.push.of_room(service.load(code).room_id)] == [
        push_service.endpoint("cy")
    ]
    assert service.push.of_room(service.load(other).room_id) == []


@pytest.mark.both_databases
def test_turning_it_off_leaving_the_seat_or_the_room_going_stop_the_pushes(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    service = service_of(client)
    code, tokens = new_room(client, toy_game, 3)
    subscribe(client, code, tokens[1], push_service.subscription("bob"))
    subscribe(client, code, tokens[2], push_service.subscription("cy"))
    subscribe(client, code, tokens[0], push_service.subscription("ann"))
    room_id = service.load(code).room_id
    as_seat(client, code, tokens[0])
    assert (
        client.post(f"/r/{code}/push/off", json={"endpoint": push_service.endpoint("ann")}).status_code == 204
    )
    client.cookies.clear()
    service.seats.remove_seat(code, 0, 1)  # the host removes Bob from the lobby
    assert {r.seat: r.endpoint for r, *_ in service.push.of_room(room_id)} == {1: push_service.endpoint("cy")}
    # Cy, now seat 1, is told of seat 1's turns; nobody else.
    service.seats.add_bot(code, 0)
    start(client, code, tokens)
    sender = sender_of(client)
    assert sender.wait_idle()
    assert [post.browser for post in push_service.posts] == ["cy"]
    # The room is deleted (a waiting room forgotten): its subscriptions go with its seats.
    other, others = new_room(client, toy_game, 2)
    subscribe(client, other, others[1], push_service.subscription("di"))
    other_id = service.load(other).room_id
    settings = client.app.state.settings  # type: ignore[attr-defined]
    assert other in sweep_once(service, settings, now=utcnow() + timedelta(days=30))
    assert service.push.of_room(other_id) == []


def test_a_move_answers_as_fast_when_the_push_service_is_slow_or_down(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    """Each measured move gives both seats a new decision, so each one makes two pushes."""
    sender = sender_of(client)

    def round_times(rooms: int) -> list[float]:
        times = []
        for _ in range(rooms):
            code, tokens = new_room(client, toy_game, 2)
            for seat, name in enumerate(("ann", "bob")):
                subscribe(client, code, tokens[seat], push_service.subscription(name))
            start(client, code, tokens)
            pick(client, code, tokens, 0)
            times.append(pick(client, code, tokens, 1))  # ends the round
        return times

    round_times(2)  # warm up
    assert sender.wait_idle(30)
    normal = statistics.median(round_times(6))
    assert sender.wait_idle(30)
    push_service.delay = 0.5  # every push waits 0.5 s for its answer (one at a time: one host)
    slow = statistics.median(round_times(6))
    assert sender.wait_idle(60)
    push_service.stop()  # down: its port refuses connections
    down = statistics.median(round_times(6))
    assert sender.wait_idle(30)
    print(
        f"median move answer: normal {normal * 1000:.1f} ms, slow {slow * 1000:.1f} ms, down {down * 1000:.1f} ms"
    )
    assert slow < normal + 0.1 and down < normal + 0.1, (normal, slow, down)
    assert any(post.status == 201 for post in push_service.posts)


@pytest.mark.both_databases
def test_only_one_process_sends_a_turn_however_many_see_it(
    database_url: str, push_service: PushService, toy_game: str, push_settings: Settings
) -> None:
    with TestClient(create_app(push_settings)) as client:
        code, tokens = new_room(client, toy_game, 2)
        subscribe(client, code, tokens[1], push_service.subscription("bob"))
        first = sender_of(client)
        db = Database(database_url)  # a second process: its own service and sender, the same database
        try:
            second = PushSender(RoomService(db), first.vapid)
            second.start()
            start(client, code, tokens)
            for _ in range(3):
                second.note(code, None)
            assert first.wait_idle() and second.wait_idle()
            second.stop()
        finally:
            db.dispose()
    assert [post.browser for post in push_service.posts] == ["bob"]


def test_the_vapid_key_is_made_once_and_kept_with_the_data_unless_the_operator_gives_one(
    push_settings: Settings,
) -> None:
    def vapid(settings: Settings) -> Vapid:
        with TestClient(create_app(settings)) as client:
            return sender_of(client).vapid

    def public_key(settings: Settings) -> str:
        return vapid(settings).public

    first = vapid(push_settings)
    made = first.public
    assert made == public_key_of(first.private_key)  # kept beside it: a restart reads it back
    assert public_key(push_settings) == made  # a restart keeps it
    db = Database(push_settings.database_url)  # kept before the public half was: derived once again
    with db.write() as session:
        session.delete(session.get(ServerKey, VAPID_PUBLIC_KEY))
    db.dispose()
    assert public_key(push_settings) == made
    given = SecretStr(new_private_pem())
    chosen = push_settings.model_copy(update={"vapid_private_key": given})
    assert public_key(chosen) == load_vapid(given, "mailto:x").public != made


def test_a_room_page_offers_the_push_to_seats_only(client: TestClient, toy_game: str) -> None:
    code, tokens = new_room(client, toy_game, 2)
    public = sender_of(client).vapid.public
    assert public not in client.get(f"/r/{code}").text
    as_seat(client, code, tokens[1])
    page = client.get(f"/r/{code}").text
    client.cookies.clear()
    assert f'data-push-key="{public}"' in page
    worker = client.get("/service-worker.js")
    assert worker.status_code == 200 and "showNotification" in worker.text
    assert worker.headers["content-type"].startswith("text/javascript")


def test_bad_subscriptions_are_refused_readably_and_change_nothing(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    code, tokens = new_room(client, toy_game, 2)
    good = push_service.subscription("bob")
    bad_point = {**good, "keys": {**good["keys"], "p256dh": "BAAA"}}
    elsewhere = {**good, "endpoint": "http://10.0.0.1/push/x"}
    for body, status in ((bad_point, 400), (elsewhere, 400), ({"endpoint": 3}, 400), ([1], 400)):
        answer = subscribe(client, code, tokens[1], body)  # type: ignore[arg-type]
        assert answer.status_code == status and answer.json()["detail"], answer.text
    spectator = client.post(f"/r/{code}/push", json=good)
    assert spectator.status_code == 403
    assert "join" in spectator.json()["detail"]
    zh = subscribe(client, code, tokens[1], elsewhere, "zh_Hant").json()["detail"]
    assert zh != "This push service is not accepted by this server."
    assert service_of(client).push.of_room(service_of(client).load(code).room_id) == []


def test_pushes_waiting_for_a_hanging_push_service_are_bounded(
    client: TestClient, push_service: PushService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_module, "WAITING_MAX", 1)
    code, tokens = new_room(client, toy_game, 3)
    for seat, name in enumerate(("ann", "bob", "cy")):
        subscribe(client, code, tokens[seat], push_service.subscription(name))
    push_service.delay = 1.0
    start(client, code, tokens)  # three first turns at once: one may wait, the others are dropped
    assert sender_of(client).wait_idle()
    assert len(push_service.posts) == 1


@pytest.mark.both_databases
def test_the_same_subscription_posted_at_once_is_kept_once(
    service: RoomService, push_service: PushService, toy_game: str
) -> None:
    service.push.services = PushServices.named(push_service.origin)
    code, _, _ = service.seats.create_room(toy_game, 2, {}, "Ann")
    subscription = push_service.subscription("ann")
    with ThreadPoolExecutor(6) as threads:  # a double click, six times over
        done = [
            threads.submit(
                service.push.subscribe, code, 0, subscription["endpoint"], subscription["keys"], "en"
            )
            for _ in range(6)
        ]
        for future in done:
            future.result()
    assert len(service.push.of_room(service.load(code).room_id)) == 1


def test_playing_again_keeps_telling_those_who_opted_in(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    code, tokens = new_room(client, toy_game, 2)
    subscribe(client, code, tokens[1], push_service.subscription("bob"), "zh_Hant")
    start(client, code, tokens)
    for _ in range(3):
        pick(client, code, tokens, 0, 1)
        pick(client, code, tokens, 1, 2)
    sender = sender_of(client)
    assert sender.wait_idle()
    told = len(push_service.browsers["bob"].received)
    again = client.post(f"/api/rooms/{code}/again", headers=auth(tokens[0]))
    assert again.status_code in (200, 201), again.text
    fresh = again.json()["code"]
    start(client, fresh, [again.json()["token"]])  # the same seats; Bob's token is his there too
    assert sender.wait_idle()
    received = push_service.wait_for(told + 1, "bob")
    assert received[told]["url"] == f"/r/{fresh}" and received[told]["lang"] == "zh-Hant"


# ------------------------------------------------------------ where pushes may go (issue 43)
NUMERIC_HOSTS = [
    "127.0.0.1",
    "127.1",  # short: 127.0.0.1
    "0177.0.0.1",  # octal
    "0x7f.0.0.1",  # hex
    "0x7f.1",
    "0x7F000001",
    "2130706433",  # decimal
    "017700000001",
    "10.1",  # 10.0.0.1
    "192.168.1",  # 192.168.0.1
    "0xa9.0xfe.0xa9.0xfe",  # 169.254.169.254, the cloud's metadata service
    "169.254.169.254",
    "1.2.3.0x",
    "127.0.0.1.",
    "[::1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[fe80::1%25eth0]",
    "[2001:db8::1]",
    "１２７.０.０.１",  # fullwidth digits, which IDNA would make ASCII
]


class FakeResolver:
    """The test's DNS: a name's addresses as ``names`` says now (a name not in it does not
    resolve), and the names it was asked for."""

    def __init__(self, **names: list[str]) -> None:
        self.names = {name.replace("_", "."): addresses for name, addresses in names.items()}
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if host not in self.names:
            raise OSError(f"{host} does not resolve")
        return self.names[host]


def test_the_default_push_services_are_the_browsers_own_and_only_by_https() -> None:
    services = PushServices.named(DEFAULT_PUSH_SERVICES)
    for endpoint in (
        "https://fcm.googleapis.com/fcm/send/fv3jabydF5c:APA91bEc8gXeukGXEvq",  # Chrome
        "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl",  # Firefox
        "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAD%2bf8QL",  # Edge
        "https://web.push.apple.com/QOXxkfmZStUzHdcE",  # Safari
    ):
        assert services.allows(endpoint), endpoint
    refused: list[Any] = [
        "http://fcm.googleapis.com/fcm/send/x",
        "https://fcm.googleapis.com:8443/fcm/send/x",
        "https://fcm.googleapis.com.evil.example/x",
        "https://evilnotify.windows.com/w/x",
        "https://notify.windows.com.evil.example/w/x",
        "https://push.apple.com.evil.example/x",
        "https://user:secret@fcm.googleapis.com/fcm/send/x",
        "https://fcm.googleapis.com\\@127.0.0.1/x",
        "https://fcm.googleapis.com @127.0.0.1/x",
        "https://push.example.net/x",
        "https://localhost/x",
        "http://localhost:8080/push/x",
        "https://a." + "b" * 1030,
        3,
        None,
    ]
    for endpoint in refused:
        assert not services.allows(endpoint), endpoint


@pytest.mark.parametrize("host", NUMERIC_HOSTS)
def test_a_host_spelled_as_a_number_is_never_a_push_service(host: str) -> None:
    """Whatever the allowed services say: an operator cannot name one, and a service that did
    (made by hand here) still matches no endpoint; nothing is looked up."""
    with pytest.raises(ValueError, match="a push service is an origin"):
        PushServices.named(f"https://{host}")
    with pytest.raises(ValueError, match="a push service is an origin"):
        Settings(BOURSE_PUSH_SERVICES=f"{DEFAULT_PUSH_SERVICES},https://{host}")
    resolver = FakeResolver()
    named = Service("https", host.strip("[]").lower(), 443)
    services = PushServices((named, Service("https", "*.1", 443)), resolve=resolver)
    assert not services.allows(f"https://{host}/push/x")
    assert not services.reachable(f"https://{host}/push/x")
    assert resolver.asked == []


@pytest.mark.parametrize(
    "addresses",
    [
        ["127.0.0.1"],
        ["10.1.2.3"],
        ["192.168.1.20"],
        ["172.16.0.5"],
        ["169.254.169.254"],
        ["100.64.0.1"],  # shared (carrier-grade NAT)
        ["0.0.0.0"],
        ["224.0.0.251"],  # multicast
        ["240.0.0.1"],  # reserved
        ["::1"],
        ["fe80::1"],
        ["fc00::1"],
        ["::ffff:127.0.0.1"],  # IPv4-mapped
        ["2002:7f00:1::1"],  # 6to4 of 127.0.0.1
        ["64:ff9b::a00:1"],  # NAT64 of 10.0.0.1
        ["93.184.215.14", "10.0.0.1"],  # one public address does not make the others so
        [],
    ],
)
def test_a_push_service_name_that_resolves_to_our_own_network_is_refused(addresses: list[str]) -> None:
    resolver = FakeResolver(push_example_net=addresses)
    services = PushServices.named("https://push.example.net", resolve=resolver)
    assert services.allows("https://push.example.net/push/x")
    assert not services.reachable("https://push.example.net/push/x")
    assert resolver.asked == ["push.example.net"]
    assert (
        PushServices.named("https://push.example.net", resolve=FakeResolver()).reachable(
            "https://push.example.net/x"
        )
        is False
    )  # a name that does not resolve
    assert PushServices.named(
        "https://push.example.net", resolve=FakeResolver(push_example_net=["93.184.215.14", "2606:2800::1"])
    ).reachable("https://push.example.net/x")
    assert public("8.8.8.8") and not any(
        public(address) for address in addresses if address != "93.184.215.14"
    )


def test_only_a_named_localhost_origin_reaches_this_machine_and_only_its_loopback() -> None:
    """The test suite's way in (``http://localhost:<port>`` named by the operator): only that port,
    only loopback addresses, never as a pattern, never for a name that is not ``localhost``."""
    resolver = FakeResolver(localhost=["127.0.0.1"])
    services = PushServices.named("http://localhost:8123", resolve=resolver)
    assert services.reachable("http://localhost:8123/push/a")
    assert not services.allows("http://localhost:8124/push/a")
    assert not services.allows("https://localhost:8123/push/a")
    resolver.names["localhost"] = ["10.0.0.1"]  # loopback only, never a private network
    assert not services.reachable("http://localhost:8123/push/a")
    for origin in (
        "http://localhost",
        "https://localhost",
        "http://*.localhost:8123",
        "http://push.example.net",
    ):
        with pytest.raises(ValueError):
            PushServices.named(origin)
    https = PushServices.named(
        "https://push.example.net:8123", resolve=FakeResolver(push_example_net=["127.0.0.1"])
    )
    assert not https.reachable("https://push.example.net:8123/push/a")  # loopback only for localhost
    assert not PushServices.named(DEFAULT_PUSH_SERVICES).allows("http://localhost:8123/push/a")


def test_bad_endpoints_posted_by_a_seat_are_refused_readably_and_nothing_is_kept(
    database_url: str, push_service: PushService, toy_game: str
) -> None:
    """Through the route, as an attacker with a seat posts them: a number for a host, a name of
    our own network, a service not allowed; each a 400 with words, nothing kept, nothing looked up
    for a visitor without a seat."""
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_PUSH_SERVICES=",".join(
            [DEFAULT_PUSH_SERVICES, "https://push.example.net", "https://*.example.org", push_service.origin]
        ),
    )
    resolver = FakeResolver(
        push_example_net=["10.0.0.7"], a_example_org=["::ffff:169.254.169.254"], localhost=["127.0.0.1"]
    )
    with TestClient(create_app(settings)) as client:
        service_of(client).push.services.resolve = resolver
        code, tokens = new_room(client, toy_game, 2)
        keys = push_service.subscription("bob")["keys"]
        spectator = client.post(
            f"/r/{code}/push", json={"endpoint": "https://push.example.net/x", "keys": keys}
        )
        assert spectator.status_code == 403 and resolver.asked == []
        endpoints = [f"https://{host}/push/x" for host in NUMERIC_HOSTS] + [
            "https://push.example.net/push/x",
            "https://a.example.org/push/x",
            "https://b.example.org/push/x",  # does not resolve
            "https://push.example.com/push/x",
            "http://localhost:1/push/x",
        ]
        for endpoint in endpoints:
            answer = subscribe(client, code, tokens[1], {"endpoint": endpoint, "keys": keys})
            assert answer.status_code == 400, (endpoint, answer.text)
            assert answer.json()["detail"] == "This push service is not accepted by this server.", endpoint
        assert sorted(set(resolver.asked)) == ["a.example.org", "b.example.org", "push.example.net"]
        assert service_of(client).push.of_room(service_of(client).load(code).room_id) == []
        assert subscribe(client, code, tokens[1], push_service.subscription("bob")).status_code == 204


@pytest.mark.parametrize("rebound", ["127.0.0.1", "::ffff:127.0.0.1", "10.0.0.1"])
def test_a_name_that_turns_to_our_own_network_after_opting_in_is_not_posted_to(
    database_url: str, toy_game: str, rebound: str
) -> None:
    """The name resolved to a public address when the seat opted in; by the push it resolves to
    this machine, where a listener waits on the service's port: the sender looks it up again, does
    not connect, and counts the failure."""
    listener = Listener()
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_PUSH_SERVICES=f"https://push.example.net:{listener.port}",
    )
    resolver = FakeResolver(push_example_net=["93.184.215.14"])
    try:
        with TestClient(create_app(settings)) as client:
            service_of(client).push.services.resolve = resolver
            code, tokens = new_room(client, toy_game, 2)
            endpoint = f"https://push.example.net:{listener.port}/push/bob"
            subscription = {"endpoint": endpoint, "keys": PushService().subscription("bob")["keys"]}
            assert subscribe(client, code, tokens[1], subscription).status_code == 204
            resolver.names["push.example.net"] = [rebound]
            start(client, code, tokens)
            sender = sender_of(client)
            assert sender.wait_idle()
            assert resolver.asked == ["push.example.net", "push.example.net"]
            assert sender.counts.failed == 1 and sender.counts.sent == 0
        assert listener.accepted == 0
    finally:
        listener.stop()


def test_the_sender_connects_to_the_address_it_checked_not_to_a_second_lookup(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    """The test's resolver says ``localhost`` is 127.0.0.3 while the system's says 127.0.0.1: the
    push reaches a listener on 127.0.0.3, the push service on 127.0.0.1 sees nothing."""
    elsewhere = Listener("127.0.0.3")
    try:
        services = service_of(client).push.services
        services.services = (*services.services, *PushServices.named(elsewhere.origin).services)
        code, tokens = new_room(client, toy_game, 2)
        assert (
            subscribe(
                client,
                code,
                tokens[1],
                {**push_service.subscription("bob"), "endpoint": elsewhere.endpoint("bob")},
            ).status_code
            == 204
        )
        services.resolve = FakeResolver(localhost=["127.0.0.3"])
        assert system_resolve("localhost", elsewhere.port) != ["127.0.0.3"]
        start(client, code, tokens)
        deadline = time.monotonic() + 5
        while not elsewhere.accepted and time.monotonic() < deadline:
            time.sleep(0.05)
        assert elsewhere.accepted == 1 and push_service.posts == []
    finally:
        elsewhere.stop()


def test_push_services_that_accept_and_never_answer_hold_up_no_other_seats_push(
    database_url: str, push_service: PushService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four rooms' seats subscribed five endpoints each at a tarpit (it accepts and never answers;
    a push gives up after 30 s): another room's push to its own service still arrives at once, the
    tarpit never has more than one of our connections open, and past ``HOST_WAITING_MAX`` its
    pushes are dropped rather than crowding out the others'."""
    monkeypatch.setattr(push_module, "HOST_WAITING_MAX", 8)
    tarpit = Listener()
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_BOT_DELAY=0,
        BOURSE_PUSH_SERVICES=f"{push_service.origin},{tarpit.origin}",
        BOURSE_PUSH_TIMEOUT=30,
    )
    try:
        with TestClient(create_app(settings)) as client:
            sender = sender_of(client)
            keys = push_service.subscription("bob")["keys"]
            for room in range(4):
                code, tokens = new_room(client, toy_game, 2)
                for browser in range(5):
                    endpoint = tarpit.endpoint(f"r{room}b{browser}")
                    assert (
                        subscribe(client, code, tokens[1], {"endpoint": endpoint, "keys": keys}).status_code
                        == 204
                    )
                start(client, code, tokens)
            deadline = time.monotonic() + 5
            while not tarpit.accepted and time.monotonic() < deadline:
                time.sleep(0.05)
            assert tarpit.accepted == 1
            code, tokens = new_room(client, toy_game, 2)
            assert subscribe(client, code, tokens[1], push_service.subscription("bob")).status_code == 204
            began = time.monotonic()
            start(client, code, tokens)
            assert len(push_service.wait_for(1, "bob", timeout=10)) == 1
            took = time.monotonic() - began
            assert took < 3.0, took  # behind the tarpit, it would wait 30 s at least
            assert tarpit.accepted == 1 and tarpit.most_open == 1
            assert sender.counts.dropped == 20 - 8
    finally:
        tarpit.stop()


def test_an_endpoint_that_fails_a_few_times_in_a_row_is_forgotten(
    client: TestClient, push_service: PushService, toy_game: str
) -> None:
    """500s (or timeouts, or refusals) in a row: forgotten at the third; a success in between starts
    the count again."""
    code, tokens = new_room(client, toy_game, 2)
    subscribe(client, code, tokens[1], push_service.subscription("bob"))
    subscribe(client, code, tokens[0], push_service.subscription("ann"))
    start(client, code, tokens)
    sender = sender_of(client)
    assert sender.wait_idle()
    service = service_of(client)
    room = service.load(code)

    def bob() -> list[Any]:
        return [
            r for r, *_ in service.push.of_room(room.room_id) if r.endpoint == push_service.endpoint("bob")
        ]

    def push_once() -> None:
        (recipient,) = bob()
        sender._send(room, recipient, "turn")
        assert sender.wait_idle()

    push_service.failing.add("bob")
    for _ in range(2):
        push_once()
    push_service.failing.discard("bob")
    push_once()  # answered: the count starts again
    push_service.failing.add("bob")
    for _ in range(2):
        push_once()
    assert len(bob()) == 1
    push_once()  # the third failure in a row
    assert bob() == []
    assert len(service.push.of_room(room.room_id)) == 1  # Ann's, which did not fail
    assert sender.counts.failed == 5 and sender.counts.forgotten == 1


def test_the_vapid_private_key_shows_in_no_repr_and_no_log(
    push_settings: Settings, push_service: PushService, toy_game: str, caplog: pytest.LogCaptureFixture
) -> None:
    pem = new_private_pem()
    secret = "".join(pem.splitlines()[1:-1])  # the key's own characters
    caplog.set_level(logging.DEBUG)
    settings = Settings(
        BOURSE_DATABASE_URL=push_settings.database_url,
        BOURSE_PUSH_SERVICES=push_service.origin,
        BOURSE_VAPID_PRIVATE_KEY=SecretStr(pem),
    )
    with TestClient(create_app(settings)) as client:
        sender = sender_of(client)
        code, tokens = new_room(client, toy_game, 2)
        subscribe(client, code, tokens[1], push_service.subscription("bob"))
        start(client, code, tokens)
        assert sender.wait_idle()
        assert len(push_service.wait_for(1, "bob")) == 1  # signed with it
        shown = [
            repr(settings),
            str(settings),
            settings.model_dump_json(),
            repr(sender.vapid),
            str(sender.vapid),
        ]
    shown += [record.getMessage() for record in caplog.records]
    for text in shown:
        assert secret[:24] not in text and pem not in text
    assert settings.vapid_private_key.get_secret_value() == pem


def test_the_push_key_is_kept_without_the_web_layer(database_url: str) -> None:
    """``python -m app.migrate`` makes the key; it imports nothing of ``app.web``."""
    probe = (
        "import sys\n"
        "from app.migrate import keep_push_key, upgrade_to_head\n"
        f"upgrade_to_head({database_url!r})\n"
        f"keep_push_key({database_url!r})\n"
        "print(sorted(name for name in sys.modules if name.startswith('app.web')))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    db = Database(database_url)
    try:
        with db.read() as session:
            assert session.get(ServerKey, VAPID_PUBLIC_KEY) is not None
    finally:
        db.dispose()


def test_an_endpoint_that_never_answers_is_given_up_on_and_forgotten_at_the_third_time(
    database_url: str, push_service: PushService, toy_game: str
) -> None:
    tarpit = Listener()
    settings = Settings(
        BOURSE_DATABASE_URL=database_url,
        BOURSE_PUSH_SERVICES=tarpit.origin,
        BOURSE_PUSH_TIMEOUT=0.5,
    )
    try:
        with TestClient(create_app(settings)) as client:
            sender, service = sender_of(client), service_of(client)
            code, tokens = new_room(client, toy_game, 2)
            subscription = {**push_service.subscription("bob"), "endpoint": tarpit.endpoint("bob")}
            assert subscribe(client, code, tokens[1], subscription).status_code == 204
            room = service.load(code)
            for tries in range(1, 4):
                (recipient,) = [r for r, *_ in service.push.of_room(room.room_id)]
                began = time.monotonic()
                sender._send(room, recipient, "turn")
                assert sender.wait_idle()
                assert 0.4 < time.monotonic() - began < 3, tries  # given up after the timeout
                assert tarpit.accepted == tries
            assert service.push.of_room(room.room_id) == []
            assert sender.counts.failed == 3 and sender.counts.forgotten == 1
    finally:
        tarpit.stop()
