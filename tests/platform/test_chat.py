"""Table chat (issue 11): messages and quick reactions kept with the room, escaped, length- and
rate-limited (429), pushed live to that room's tabs only, spectators' marked, and a host mute that
holds on every path (issue 21, finding 6) and takes the muted person's lines away (issue 20)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from app.config import Settings
from app.models import ChatMessage, ChatMute, utcnow
from app.rooms import CHAT_MAX, RoomService, chat_author, hash_token
from app.web.app import create_app
from tests.platform.test_api import auth
from tests.platform.test_live_sync import received
from tests.platform.test_replay import bot_game, record_of


def app_client(database_url: str, rate: str = "off") -> TestClient:
    settings = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_RATE_CHAT=rate)
    return TestClient(create_app(settings))


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    with app_client(database_url) as test_client:
        yield test_client


def new_room(client: TestClient) -> tuple[str, str, str]:
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, ann = created["code"], created["token"]
    bob = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    return code, ann, bob


def say(client: TestClient, code: str, text: str, token: str | None = None) -> int:
    headers = auth(token) if token else {}
    return client.post(f"/api/rooms/{code}/chat", json={"text": text}, headers=headers).status_code


def test_a_message_is_escaped_kept_and_pushed_to_that_room_only(client: TestClient) -> None:
    code, ann, bob = new_room(client)
    other, _, _ = new_room(client)
    with contextlib.ExitStack() as stack:
        here = stack.enter_context(
            client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"})
        )
        watcher = stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}"))
        elsewhere = stack.enter_context(client.websocket_connect(f"/ws/rooms/{other}"))
        for tab in (here, watcher, elsewhere):
            received(tab)
        assert say(client, code, "<script>alert('hi')</script> & <b>bold</b>", bob) == 201
        pushed = "".join(received(here))
        assert pushed == "".join(received(watcher))  # the same bytes to every tab (one language)
        assert 'hx-swap-oob="beforeend:#chat-list"' in pushed
        assert "&lt;script&gt;" in pushed and "<script>" not in pushed and "<b>" not in pushed
        assert "Bob" in pushed and "from-spectator" not in pushed
        assert 'id="r-' not in pushed  # no region of the table is drawn again for a chat message
        assert received(elsewhere) == []
    page = client.get(f"/r/{code}").text
    assert "&lt;script&gt;alert" in page and "<script>alert" not in page
    assert client.get(f"/api/rooms/{code}/chat").json()["messages"][0]["text"].startswith("<script>")
    assert client.get(f"/api/rooms/{other}/chat").json()["messages"] == []


def test_messages_are_length_limited_and_cleaned(client: TestClient) -> None:
    code, ann, _ = new_room(client)
    assert say(client, code, "x" * (CHAT_MAX + 1), ann) == 400
    assert say(client, code, "   \n\t ", ann) == 400
    assert say(client, code, "x" * CHAT_MAX, ann) == 201
    assert say(client, code, "turn \u202eit\u202c  around\x00", ann) == 201
    texts = [m["text"] for m in client.get(f"/api/rooms/{code}/chat").json()["messages"]]
    assert texts[-1] == "turn it around"


def test_quick_reactions_are_a_fixed_few(client: TestClient) -> None:
    code, ann, _ = new_room(client)
    ok = client.post(f"/api/rooms/{code}/chat", json={"reaction": "👍"}, headers=auth(ann))
    assert ok.status_code == 201 and ok.json()["reaction"]
    assert (
        client.post(f"/api/rooms/{code}/chat", json={"reaction": "🍅"}, headers=auth(ann)).status_code == 400
    )
    page = client.get(f"/r/{code}?lang=en").text
    assert 'aria-label="Thumbs up"' in page


def test_spectators_messages_are_marked_and_players_can_hide_them(client: TestClient) -> None:
    code, ann, _ = new_room(client)
    watcher = TestClient(client.app)
    posted = watcher.post(f"/r/{code}/chat", data={"text": "go Ann!", "name": "Zoe"}, follow_redirects=False)
    assert posted.status_code == 303 and "bourse_viewer" in posted.headers.get("set-cookie", "")
    message = client.get(f"/api/rooms/{code}/chat").json()["messages"][-1]
    assert message["spectator"] and message["name"] == "Zoe" and message["seat"] is None
    player_page = client.get(f"/r/{code}?lang=en", headers={"cookie": f"bourse_seat_{code}={ann}"}).text
    assert "from-spectator" in player_page and 'id="chat-hide-spectators"' in player_page
    assert 'id="chat-hide-spectators"' not in watcher.get(f"/r/{code}?lang=en").text


def test_the_host_mutes_a_person(client: TestClient) -> None:
    code, ann, bob = new_room(client)
    watcher = TestClient(client.app)
    watcher.post(f"/r/{code}/chat", data={"text": "spam"})
    assert say(client, code, "hello", bob) == 201
    messages = client.get(f"/api/rooms/{code}/chat").json()["messages"]
    spam, hello = messages[0]["id"], messages[1]["id"]
    host_page = client.get(f"/r/{code}", headers={"cookie": f"bourse_seat_{code}={ann}"}).text
    assert host_page.count('class="chat-mute"') == 2 and " hidden>" not in host_page.split("chat-list")[1]
    too_big = client.post(f"/api/rooms/{code}/chat/mute", json={"message": 2**70}, headers=auth(ann))
    assert too_big.status_code == 404  # past what a database holds: no such message (it was a 500)
    # only the host may mute
    assert (
        client.post(f"/api/rooms/{code}/chat/mute", json={"message": spam}, headers=auth(bob)).status_code
        == 403
    )
    muted = client.post(
        f"/r/{code}/chat/mute",
        data={"message": str(spam)},
        headers={"cookie": f"bourse_seat_{code}={ann}"},
        follow_redirects=False,
    )
    assert muted.status_code == 303
    refused = watcher.post(f"/r/{code}/chat", data={"text": "more spam"}, headers={"hx-request": "true"})
    assert refused.status_code == 403 and "muted" in refused.text
    assert (
        client.post(f"/api/rooms/{code}/chat/mute", json={"message": hello}, headers=auth(ann)).status_code
        == 200
    )
    assert say(client, code, "hello again", bob) == 403
    assert say(client, code, "I can still talk", ann) == 201
    assert (
        client.post(f"/api/rooms/{code}/chat/mute", json={"message": 9999}, headers=auth(ann)).status_code
        == 404
    )


def at(client: TestClient, address: str) -> TestClient:
    """Another browser on the same server, writing from ``address`` (and without cookies)."""
    return TestClient(client.app, client=(address, 50000))


def ids_and_texts(client: TestClient, code: str) -> list[tuple[int, str]]:
    return [(m["id"], m["text"]) for m in client.get(f"/api/rooms/{code}/chat").json()["messages"]]


def test_a_room_without_a_host_lets_nobody_without_a_seat_mute(client: TestClient) -> None:
    """A bots-only room, and one imported from a record, have no host and give nobody a seat: the
    spectators talking there cannot mute each other (issue 43), by the API or the page's form."""
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    bots, _ = bot_game(service, "qe", 3)
    imported = client.post("/rooms/import", json=record_of(client, bots)).json()["code"]
    for code in (bots, imported):
        line = client.post(f"/api/rooms/{code}/chat", json={"text": "hello", "name": "Viv"}).json()["id"]
        api = client.post(f"/api/rooms/{code}/chat/mute", json={"message": line})
        assert api.status_code == 403 and api.json() == {"detail": "Only the host can do that."}
        page = client.post(
            f"/r/{code}/chat/mute", data={"message": str(line)}, headers={"HX-Request": "true"}
        )
        assert page.status_code == 403
        assert [said["text"] for said in client.get(f"/api/rooms/{code}/chat").json()["messages"]] == [
            "hello"
        ]


def test_a_muted_spectator_stays_muted_without_the_cookie_or_through_the_api(client: TestClient) -> None:
    code, ann, bob = new_room(client)
    home = "198.51.100.7"
    zoe = at(client, home)
    assert zoe.post(f"/r/{code}/chat", data={"text": "spam"}, follow_redirects=False).status_code == 303
    spam = ids_and_texts(client, code)[-1][0]
    assert (
        client.post(f"/api/rooms/{code}/chat/mute", json={"message": spam}, headers=auth(ann)).status_code
        == 200
    )
    no_cookie = at(client, home)
    page = no_cookie.post(f"/r/{code}/chat", data={"text": "spam again"}, headers={"hx-request": "true"})
    assert page.status_code == 403 and "muted spectators writing from your network" in page.text
    form = no_cookie.post(f"/r/{code}/chat", data={"text": "and again"}, headers={"accept-language": "en"})
    assert "muted spectators writing from your network" in form.text  # back on the room page, refused
    api = no_cookie.post(f"/api/rooms/{code}/chat", json={"text": "through the API"})
    assert api.status_code == 403 and "from your network" in api.json()["detail"]
    # an IPv6 neighbour of the same /64 is the same household
    assert at(client, "2001:db8::1").post(f"/api/rooms/{code}/chat", json={"text": "hi"}).status_code == 201
    v6 = ids_and_texts(client, code)[-1][0]
    client.post(f"/api/rooms/{code}/chat/mute", json={"message": v6}, headers=auth(ann))
    assert (
        at(client, "2001:db8::ffff").post(f"/api/rooms/{code}/chat", json={"text": "hi"}).status_code == 403
    )
    # a seat at the muted address still writes, and so does a spectator elsewhere
    assert (
        at(client, home).post(f"/api/rooms/{code}/chat", json={"text": "me"}, headers=auth(bob)).status_code
        == 201
    )
    assert at(client, "203.0.113.9").post(f"/r/{code}/chat", data={"text": "hello"}).status_code == 200
    assert [text for _, text in ids_and_texts(client, code)] == ["me", "hello"]


def test_a_muted_seat_stays_muted_without_its_token(client: TestClient) -> None:
    code, ann, bob = new_room(client)
    home = "198.51.100.7"
    cat = client.post(f"/api/rooms/{code}/join", json={"name": "Cat"}).json()["token"]
    bobs_phone = at(client, home)
    assert (
        bobs_phone.post(f"/api/rooms/{code}/chat", json={"text": "rude"}, headers=auth(bob)).status_code
        == 201
    )
    rude = ids_and_texts(client, code)[-1][0]
    assert client.post(f"/api/rooms/{code}/chat/mute", json={"message": rude}, headers=auth(ann)).json() == {
        "muted": rude,
        "removed": [rude],
    }
    assert (
        bobs_phone.post(f"/api/rooms/{code}/chat", json={"text": "still rude"}, headers=auth(bob)).status_code
        == 403
    )
    assert bobs_phone.post(f"/api/rooms/{code}/chat", json={"text": "no token"}).status_code == 403
    page = at(client, home).post(
        f"/r/{code}/chat", data={"text": "no cookie"}, headers={"hx-request": "true"}
    )
    assert page.status_code == 403 and "muted" in page.text
    # Cat shares Bob's home network: her seat is not muted
    assert (
        at(client, home).post(f"/api/rooms/{code}/chat", json={"text": "hi"}, headers=auth(cat)).status_code
        == 201
    )
    assert [text for _, text in ids_and_texts(client, code)] == ["hi"]


def test_a_mute_takes_the_muted_persons_earlier_lines_away(client: TestClient) -> None:
    code, ann, bob = new_room(client)
    zoe, yan = at(client, "198.51.100.7"), at(client, "203.0.113.9")
    zoe.post(f"/r/{code}/chat", data={"text": "zoe one", "name": "Zoe"})
    assert say(client, code, "bob one", bob) == 201
    zoe.post(f"/r/{code}/chat", data={"text": "zoe two", "name": "Zoe"})
    yan.post(f"/r/{code}/chat", data={"text": "yan one"})
    assert say(client, code, "bob two", bob) == 201
    lines = dict((text, number) for number, text in ids_and_texts(client, code))
    host = {"cookie": f"bourse_seat_{code}={ann}"}
    with contextlib.ExitStack() as stack:
        tabs = [
            stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}", headers=host)),
            stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}?lang=zh-Hant")),
        ]
        for tab in tabs:
            received(tab)
        muted = client.post(
            f"/r/{code}/chat/mute",
            data={"message": str(lines["zoe two"])},
            headers=host,
            follow_redirects=False,
        )
        assert muted.status_code == 303
        for tab in tabs:
            assert "".join(received(tab)) == (
                f'<div hx-swap-oob="delete:#chat-{lines["zoe one"]}"></div>'
                f'<div hx-swap-oob="delete:#chat-{lines["zoe two"]}"></div>'
            )
        answer = client.post(
            f"/r/{code}/chat/mute",
            data={"message": str(lines["bob one"])},
            headers={**host, "hx-request": "true"},
        )
        assert answer.status_code == 200 and "their messages are removed" in answer.text
        pushed = "".join(received(tabs[1]))
        assert f"delete:#chat-{lines['bob one']}" in pushed and f"delete:#chat-{lines['bob two']}" in pushed
    assert [text for _, text in ids_and_texts(client, code)] == ["yan one"]
    page = client.get(f"/r/{code}", headers=host).text
    fetched = client.get(f"/r/{code}/chat", headers=host).text
    for text in ("zoe one", "zoe two", "bob one", "bob two"):
        assert text not in page and text not in fetched
    assert "yan one" in page and "yan one" in fetched


def test_chat_is_rate_limited_with_a_readable_429(database_url: str) -> None:
    with app_client(database_url, rate="3/minute") as client:
        code, ann, _ = new_room(client)
        assert [say(client, code, f"message {n}", ann) for n in range(3)] == [201, 201, 201]
        answer = client.post(f"/api/rooms/{code}/chat", json={"text": "one more"}, headers=auth(ann))
        assert answer.status_code == 429
        assert "too fast" in answer.json()["detail"] and int(answer.headers["retry-after"]) > 0
        page = client.post(f"/r/{code}/chat", data={"text": "and more"}, headers={"hx-request": "true"})
        assert page.status_code == 429 and "too fast" in page.text


def test_a_swept_room_takes_its_chat_and_mutes_with_it(service: RoomService) -> None:
    code, _, token = service.seats.create_room("qe", 3, {}, "Ann")
    assert token is not None
    line = service.chat.post(code, 0, chat_author(hash_token(token)), "anyone?")
    service.chat.post(code, None, "viewer:someone", "me")
    service.chat.mute(code, 0, line.id + 1)
    assert service.sweeper.sweep(utcnow() + timedelta(days=1), None) == [code]
    with service.db.read() as session:
        assert session.exec(select(func.count()).select_from(ChatMessage)).one() == 0
        assert session.exec(select(func.count()).select_from(ChatMute)).one() == 0


def test_a_tab_back_online_fetches_the_messages_it_missed(client: TestClient) -> None:
    """Pushes are not replayed: GET /r/{code}/chat gives this reader's list, escaped, with the mute
    buttons shown to the host only (and never on the host's own lines)."""
    code, ann, bob = new_room(client)
    assert say(client, code, "<i>hello</i>", bob) == 201
    assert say(client, code, "welcome", ann) == 201
    host = client.get(f"/r/{code}/chat", headers={"cookie": f"bourse_seat_{code}={ann}"})
    assert host.status_code == 200 and host.headers["cache-control"] == "no-store"
    assert "&lt;i&gt;hello&lt;/i&gt;" in host.text and "<i>hello" not in host.text
    assert host.text.count('class="chat-mute"') == 2 and host.text.count(" hidden>") == 1  # not on Ann's own
    guest = client.get(f"/r/{code}/chat", headers={"cookie": f"bourse_seat_{code}={bob}"})
    assert guest.text.count('class="chat-mute"') == guest.text.count(" hidden>") == 2
    assert client.get("/r/nosuchroom/chat").status_code == 404
