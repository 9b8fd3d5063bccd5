"""A move sent over the tab's WebSocket (``app/web/moves.py``) is the form post's move: the same
seat, checks, refusals (in the tab's language), rate limit and durability; its answer comes after
the table it changed. A message that is not a move changes nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.exc import OperationalError
from starlette.testclient import WebSocketTestSession

from app.config import Settings
from app.web.app import create_app
from tests.platform.test_api import new_qe_room
from tests.platform.test_live_sync import received


def tab_of(client: TestClient, code: str, token: str | None, locale: str = "en") -> Any:
    cookie = f"bourse_lang={locale}" + (f"; bourse_seat_{code}={token}" if token else "")
    return client.websocket_connect(f"/ws/rooms/{code}", headers={"cookie": cookie})


def send_move(tab: WebSocketTestSession, number: int, fields: list[tuple[str, str]]) -> None:
    tab.send_text(json.dumps({"move": number, "fields": [list(pair) for pair in fields]}))


def answers(messages: list[str]) -> list[dict[str, Any]]:
    return [json.loads(message) for message in messages if message.startswith('{"move"')]


def until_answered(tab: WebSocketTestSession, number: int) -> list[str]:
    """The messages the tab gets up to the answer to move ``number`` (the socket's moves are played
    in turn, so the answers to the moves sent before it come first)."""
    messages: list[str] = []
    while not messages or not messages[-1].startswith(f'{{"move": {number},'):
        messages.append(tab.receive_text())
    return messages


def room(client: TestClient, code: str) -> dict[str, Any]:
    answer: dict[str, Any] = client.get(f"/api/rooms/{code}").json()
    return answer


def started(client: TestClient) -> tuple[str, list[str], dict[str, Any], int]:
    """A started three-seat Q.E. room: its code, tokens, state and the seat to move first."""
    code, tokens = new_qe_room(client, 3)
    before = room(client, code)
    return code, tokens, before, before["to_act"][0]


@pytest.mark.both_databases
def test_a_move_over_the_socket_is_played_and_answered_after_its_table(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens, before, seat = started(client)
        with (
            tab_of(client, code, tokens[seat]) as mine,
            tab_of(client, code, tokens[(seat + 1) % 3]) as other,
        ):
            received(mine), received(other)
            send_move(mine, 7, [("version", str(before["version"])), ("type", "open_bid"), ("amount", "40")])
            messages = until_answered(mine, 7)
            assert answers(messages) == [{"move": 7, "status": 200, "message": ""}]
            # the table the move made came first, then the answer
            assert f'data-room-version="{before["version"] + 1}"' in messages[0]
            assert messages[-1].startswith('{"move"')
            assert f'data-room-version="{before["version"] + 1}"' in "".join(received(other))
        assert room(client, code)["version"] == before["version"] + 1
    # durable: a new app on the same database sees it
    with TestClient(create_app(settings)) as again:
        assert room(again, code)["version"] == before["version"] + 1


def test_a_refused_move_is_answered_in_the_tabs_language_and_changes_nothing(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens, before, seat = started(client)
        with tab_of(client, code, tokens[seat], "zh-Hant") as mine:
            received(mine)
            stale = str(before["version"] + 5)  # a version the room has not reached
            send_move(mine, 1, [("version", stale), ("type", "open_bid"), ("amount", "40")])
            send_move(mine, 2, [("version", str(before["version"])), ("type", "no_such_move")])
            first, second = answers(until_answered(mine, 2))
        assert first["move"] == 1 and first["status"] == 409 and first["message"]
        assert second["move"] == 2 and second["status"] == 422 and second["message"]  # as the post answers it
        for answer in (first, second):
            assert not answer["message"].isascii()  # in the tab's language (繁體中文)
        assert room(client, code)["version"] == before["version"]


def test_a_spectator_cannot_move_over_its_socket(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, _ = new_qe_room(client, 3)
        before = room(client, code)
        with tab_of(client, code, None) as spectator:
            received(spectator)
            send_move(
                spectator, 3, [("version", str(before["version"])), ("type", "open_bid"), ("amount", "40")]
            )
            (answer,) = answers(until_answered(spectator, 3))
        assert answer["status"] in (403, 404) and answer["message"]
        assert room(client, code)["version"] == before["version"]


def test_what_is_not_a_readable_move_is_ignored_or_refused(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens, before, seat = started(client)
        with tab_of(client, code, tokens[seat]) as mine:
            received(mine)
            for nobody_to_answer in (
                "hello",
                "[1, 2]",
                '{"move": "1"}',
                '{"move": true}',
                "{}",
                "[" * 50_000,
            ):
                mine.send_text(nobody_to_answer)
            mine.send_text(json.dumps({"move": 1, "fields": "type=open_bid"}))
            mine.send_text(json.dumps({"move": 2, "fields": [["type", 3]]}))
            mine.send_text(json.dumps({"move": 3, "fields": [["f", "1"]] * 1001}))
            mine.send_text(json.dumps({"move": 4, "fields": [["f", "x" * settings.max_body_bytes]]}))
            messages = until_answered(mine, 4)
        assert all(message.startswith('{"move"') for message in messages)  # nothing else was answered
        refused = answers(messages)
        assert [(answer["move"], answer["status"]) for answer in refused] == [
            (1, 400),
            (2, 400),
            (3, 400),
            (4, 413),
        ]
        assert refused[0]["message"] == "This move could not be read."
        assert refused[2]["message"] == "This form has too many fields."
        assert room(client, code)["version"] == before["version"]


def test_moves_over_a_socket_count_against_the_act_limit(settings: Settings) -> None:
    limited = settings.model_copy(update={"rate_act": "2/hour"})  # starting the game is one
    with TestClient(create_app(limited)) as client:
        code, tokens, before, seat = started(client)
        with tab_of(client, code, tokens[seat]) as mine:
            received(mine)
            move = [("version", str(before["version"])), ("type", "open_bid"), ("amount", "40")]
            send_move(mine, 1, move)
            send_move(mine, 2, [("version", str(before["version"] + 1)), ("type", "pass")])
            first, second = answers(until_answered(mine, 2))
        assert first["status"] == 200
        assert second["status"] == 429 and "try again" in second["message"]
        # the form post counts against the same limit
        posted = client.post(
            f"/r/{code}/act",
            data={"version": str(before["version"] + 1), "type": "pass"},
            headers={"cookie": f"bourse_seat_{code}={tokens[seat]}"},
            follow_redirects=False,
        )
        assert posted.status_code == 429
        assert room(client, code)["version"] == before["version"] + 1


def test_a_failing_database_or_bug_is_answered_and_the_line_stays_open(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never a dead line: the move is answered 503 (the database) or 500 (anything else), /healthz is
    told of the failed write, and the next move on the same socket is played."""
    with TestClient(create_app(settings)) as client:
        code, tokens, before, seat = started(client)
        turns = client.app.state.service.turns  # type: ignore[attr-defined]
        failures: list[Exception] = [
            OperationalError("INSERT", {}, Exception("disk I/O error")),
            RuntimeError("a bug"),
        ]
        played = turns.act_as

        def failing_once(*arguments: Any) -> Any:
            if failures:
                raise failures.pop(0)
            return played(*arguments)

        monkeypatch.setattr(turns, "act_as", failing_once)
        move = [("version", str(before["version"])), ("type", "open_bid"), ("amount", "40")]
        with tab_of(client, code, tokens[seat]) as mine:
            received(mine)
            for number in (1, 2, 3):
                send_move(mine, number, move)
            answered = answers(until_answered(mine, 3))
        assert [(answer["move"], answer["status"]) for answer in answered] == [(1, 503), (2, 500), (3, 200)]
        assert answered[0]["message"].startswith("The server cannot save")
        assert answered[1]["message"].startswith("Something went wrong")
        assert client.get("/healthz").status_code == 503
        assert room(client, code)["version"] == before["version"] + 1
