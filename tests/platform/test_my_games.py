"""My games (issue 23): the page lists every room this browser holds a seat in (its seat cookies),
rooms where it is your turn first, each as that seat may know it (the status line from its own
view), with the others at the table, whose turn it is and your clock; it shows no token, drops
cookies that name no seat any more, and is linked from the start page."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.config import Settings
from app.web.app import create_app
from app.web.deps import seat_cookie
from tests.platform.test_api import auth


def rooms_in_order(html: str) -> list[str]:
    return re.findall(r'<li class="my-game [^"]*" data-room="([^"]+)"', html)


def card_of(html: str, code: str) -> str:
    found = re.search(rf'<li class="my-game [^"]*" data-room="{code}">(.*?)</li>', html, re.S)
    assert found is not None, code
    return found.group(1)


def test_my_games_lists_this_browsers_seats_with_its_turns_first_and_no_secret(
    database_url: str, toy_game: str
) -> None:
    settings = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0, BOURSE_CLOCK_PRESETS="86400")
    with TestClient(create_app(settings)) as ann, TestClient(create_app(settings)) as bob:
        tokens: dict[str, tuple[str, str]] = {}
        for _ in range(2):  # two started games of the sealed guess, with a day's clock
            created = ann.post(
                "/api/rooms", json={"game": toy_game, "players": 2, "name": "Ann", "clock": 86400}
            ).json()
            code = created["code"]
            joined = bob.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
            tokens[code] = (created["token"], joined)
            ann.post(f"/api/rooms/{code}/start", headers=auth(created["token"]))
        moved, waiting_for_ann = sorted(tokens)
        version = ann.get(f"/api/rooms/{moved}").json()["version"]
        ann.post(
            f"/api/rooms/{moved}/actions",
            json={"version": version, "action": {"type": "pick", "number": 3}},
            headers=auth(tokens[moved][0]),
        )
        lobby = ann.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        for code, (token, _) in tokens.items():
            ann.cookies.set(seat_cookie(code), token)
        ann.cookies.set(seat_cookie(lobby["code"]), lobby["token"])
        ann.cookies.set(seat_cookie("gone000000000"), "not-a-seat")  # a room deleted since

        page = ann.get("/my-games?lang=en")
        assert page.status_code == 200
        html = page.text
        assert rooms_in_order(html) == [waiting_for_ann, moved, lobby["code"]]  # her turn first
        assert "It is your turn in 1 game." in html
        mine = card_of(html, waiting_for_ann)
        assert 'href="/r/' + waiting_for_ann + '"' in mine and "Sealed guess" in mine
        assert "Your turn" in mine and "With: Bob" in mine
        deadline = ann.get(f"/api/rooms/{waiting_for_ann}").json()["seats"][0]["deadline"]
        assert f'data-deadline="{deadline}"' in mine and '<time class="clock-until"' in mine
        theirs = card_of(html, moved)
        assert "Waiting for Bob." in theirs and "Your turn" not in theirs and "data-deadline" not in theirs
        assert "Waiting for players: 1 of 3 seats taken." in card_of(html, lobby["code"])
        for token in [lobby["token"], *(token for pair in tokens.values() for token in pair)]:
            assert token not in html  # no seat's token, hers or anyone's
        assert "gone000000000" not in html
        assert any(
            header.startswith(seat_cookie("gone000000000") + '=""')
            for header in page.headers.get_list("set-cookie")
        )  # a cookie that names no seat is dropped

        listed = ann.get("/my-games/list?lang=zh-Hant").text  # what the page polls, in another language
        assert listed.startswith('<div id="my-games-list"') and 'hx-get="/my-games/list"' in listed
        assert "有 1 局輪到你。" in listed and rooms_in_order(listed) == rooms_in_order(html)

        bobs = bob.get("/my-games?lang=en").text  # Bob's browser holds no seat cookie (he joined by API)
        assert "This browser holds no seat yet." in bobs and rooms_in_order(bobs) == []
        for code, (_, token) in tokens.items():
            bob.cookies.set(seat_cookie(code), token)
        bobs = bob.get("/my-games?lang=en").text
        bobs_clock = {code: ann.get(f"/api/rooms/{code}").json()["seats"][1]["deadline"] for code in tokens}
        assert rooms_in_order(bobs) == sorted(
            tokens, key=bobs_clock.__getitem__
        )  # his turn in both: soonest first
        assert "It is your turn in 2 games." in bobs
        assert 'href="/my-games"' in ann.get("/?lang=en").text


def test_a_card_says_what_the_seat_decides_as_its_own_table_does(database_url: str) -> None:
    settings = Settings(BOURSE_DATABASE_URL=database_url, BOURSE_BOT_DELAY=0)
    with TestClient(create_app(settings)) as client:
        created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        code = created["code"]
        for name in ("Bob", "Cy"):
            client.post(f"/api/rooms/{code}/join", json={"name": name})
        client.post(f"/api/rooms/{code}/start", headers=auth(created["token"]))
        client.cookies.set(seat_cookie(code), created["token"])
        table = client.get(f"/r/{code}?lang=en").text
        prompt = re.search(r'<span class="qe-prompt">(.*?)</span>', table, re.S)  # the status line's words
        assert prompt is not None
        card = card_of(client.get("/my-games?lang=en").text, code)
        assert f'<span class="qe-prompt">{prompt.group(1)}</span>' in card
        assert "With: Bob, Cy" in card
