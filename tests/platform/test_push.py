"""Web Push (issue 23): a seat that opted in is told, on a push service the test runs on loopback
(tests/push_service.py decrypts each push with the browser's keys and checks its VAPID signature),
when its turn comes, in its language, with the words of its own status line, once per turn; a clock
running out and the game's end are told once too; a 410 forgets the subscription; turning it off,
leaving the seat or the room's deletion stops it; and a move answers as fast whatever the push
service does."""

from __future__ import annotations

import statistics
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cleanup import sweep_once
from app.config import Settings
from app.db import Database
from app.models import ServerKey, utcnow
from app.rooms import RoomService, wallclock
from app.rooms.push import VAPID_PUBLIC_KEY, endpoint_allowed
from app.web import push as push_module
from app.web.app import create_app
from app.web.push import PushSender, Vapid, load_vapid, new_private_pem, public_key_of
from tests.platform.test_api import auth
from tests.push_service import PushService


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
    push_service.delay = 1.5  # every push waits 1.5 s for its answer
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
    given = new_private_pem()
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


@pytest.mark.parametrize(
    ("endpoint", "allowed"),
    [
        ("https://push.services.example/v1/abc", True),
        ("http://push.services.example/v1/abc", False),
        ("https://127.0.0.1/x", False),
        ("https://[::1]/x", False),
        ("https://localhost/x", False),
        ("https://db/x", False),  # no dot: a name only a private network knows
        ("https://a." + "b" * 1030, False),
    ],
)
def test_pushes_go_only_to_push_services_by_name_over_https(endpoint: str, allowed: bool) -> None:
    assert endpoint_allowed(endpoint) is allowed


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
    service.push.services = frozenset({push_service.origin})
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
