"""Replays rebuilt from the action log, game records exported and imported (issue 11, item 4)."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config import Settings
from app.games.base import State, visible_events
from app.games.registry import ENGINES
from app.replay import RECORD_MAX_BYTES, ReplayCache, parse_record, replay_game
from app.rooms import TIMED_OUT, RoomError, RoomService, wallclock
from app.web.app import create_app
from app.web.replay import room_replay


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def bot_game(
    service: RoomService, game: str, players: int, full_record: bool = True
) -> tuple[str, list[State]]:
    """A room of bots played to the end; the state the room had after each action (0: the setup).
    ``full_record``: its table agreed that its record holds every move."""
    code, _, _ = service.seats.create_room(game, players, {}, None, full_record=full_record)
    service.seats.add_bot(code, None, fill=True)
    service.seats.start(code, None)
    states = [service.load(code).core]
    while service.turns.bot_step(code):
        states.append(service.load(code).core)
    assert service.load(code).status == "finished"
    return code, [state for state in states if state is not None]


def record_of(client: TestClient, code: str) -> dict[str, Any]:
    answer = client.get(f"/r/{code}/record.json")
    assert answer.status_code == 200, answer.text
    assert "attachment" in answer.headers["content-disposition"]
    return dict(answer.json())


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_step_of_a_replay_is_the_table_the_room_had(service: RoomService, game: str) -> None:
    """Every seat's and a spectator's view, and the log each could read, at every step."""
    engine = ENGINES[game]
    players = engine.info.max_players
    code, states = bot_game(service, game, players)
    snapshot = service.load(code)
    replay = replay_game(engine, players, snapshot.options, snapshot.seed, service.records.action_log(code))
    assert replay.last_step == len(states) - 1 == snapshot.actions
    full = service.records.replay(code)
    assert full is not None
    for step, state in enumerate(states):
        core = replay.core(step)
        for seat in [None, *range(players)]:
            assert engine.view(core, seat) == engine.view(state, seat), (step, seat)
    for seat in [None, *range(players)]:
        assert visible_events({"events": replay.events_upto(replay.last_step)}, seat) == visible_events(
            full, seat
        )
    assert replay.core(replay.last_step) == snapshot.core


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_replay_page_shows_every_step_to_a_spectator_and_to_a_seat(client: TestClient, game: str) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, states = bot_game(service, game, ENGINES[game].info.min_players)
    last = len(states) - 1
    for step in range(last + 1):
        for seat in ("", "1"):
            page = client.get(f"/r/{code}/replay?step={step}&seat={seat}&lang=en")
            assert page.status_code == 200, (step, seat, page.text[:500])
            assert f"Move {step} of {last}" in page.text
    assert 'id="replay-step"' in page.text and f'max="{last}"' in page.text
    assert "The game is over." in page.text


def test_without_a_full_record_a_reader_replays_only_their_own_seat(client: TestClient) -> None:
    """A Q.E. seat's view holds its losing sealed bids: unless the table agreed at creation, nobody
    replays another seat's view (the record download follows the same rule)."""
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _, token = service.seats.create_room("qe", 3, {}, "Ann")
    assert token is not None
    service.seats.add_bot(code, 0, fill=True)
    service.seats.start(code, 0)
    service.seats.set_bot_control(code, 0, 0, True)
    while service.turns.bot_step(code):
        pass
    assert service.load(code).status == "finished"
    spectator = client.get(f"/r/{code}/replay?lang=en")
    assert spectator.status_code == 200 and 'id="replay-as-1"' not in spectator.text
    refused = client.get(f"/r/{code}/replay?seat=1&lang=en")
    assert refused.status_code == 403 and "kept its secrets" in refused.text
    ann = {"cookie": f"bourse_seat_{code}={token}"}
    own = client.get(f"/r/{code}/replay?seat=0&lang=en", headers=ann)
    assert own.status_code == 200 and 'id="replay-as-0"' in own.text and 'id="replay-as-2"' not in own.text
    assert client.get(f"/r/{code}/replay?seat=2&lang=en", headers=ann).status_code == 403


def test_a_replay_is_built_once_and_stepping_reads_the_cache(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, states = bot_game(service, "qe", 3)
    for step in (0, 5, 3, len(states) - 1):
        assert client.get(f"/r/{code}/replay?step={step}").status_code == 200
    cache: ReplayCache = client.app.state.replays  # type: ignore[attr-defined]
    assert cache.builds == 1 and len(cache) == 1


def test_the_replay_cache_keeps_to_its_budget() -> None:
    engine = ENGINES["qe"]
    replay = replay_game(engine, 3, {}, "7", [])
    cache = ReplayCache(budget=replay.size * 2)
    for code in ("a", "b", "c", "a"):
        cache.get(code, lambda: replay)
    assert len(cache) == 2 and cache.builds == 4  # "a" was dropped when "c" came, then built again


def test_an_htmx_step_swaps_only_the_frame(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _ = bot_game(service, "tulipmania-1637", 3)
    fragment = client.get(f"/r/{code}/replay?step=2", headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="replay-frame"') and "<html" not in fragment.text
    whole = client.get(
        f"/r/{code}/replay?step=2", headers={"HX-Request": "true", "HX-History-Restore-Request": "true"}
    )
    assert "<html" in whole.text


def test_a_game_still_played_has_no_replay_and_no_record(client: TestClient) -> None:
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
    code, token = created["code"], created["token"]
    client.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers={"Authorization": f"Bearer {token}"})
    client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {token}"})
    assert client.get(f"/r/{code}/replay").status_code == 409
    assert client.get(f"/r/{code}/record.json").status_code == 409  # the seed would foretell the game
    assert client.get("/r/nosuchroom23/replay").status_code == 404


def test_bad_steps_and_seats_are_refused_clearly(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, states = bot_game(service, "basari", 3)
    assert client.get(f"/r/{code}/replay?step=x").status_code == 400
    assert client.get(f"/r/{code}/replay?seat=7").status_code == 400
    assert client.get(f"/r/{code}/replay?seat=-1").status_code == 400
    far = client.get(f"/r/{code}/replay?step=99999&lang=en")  # past the end: the end
    assert f"Move {len(states) - 1} of {len(states) - 1}" in far.text


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_an_exported_record_imports_to_the_same_final_result(client: TestClient, game: str) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _ = bot_game(service, game, ENGINES[game].info.min_players)
    record = record_of(client, code)
    assert record["game"] == game and len(record["seats"]) == ENGINES[game].info.min_players
    answer = client.post("/rooms/import", json=record)
    assert answer.status_code == 201, answer.text
    original, imported = service.load(code), service.load(answer.json()["code"])
    assert imported.status == "finished"
    assert imported.result == original.result
    assert imported.core == original.core
    assert [(s.name, s.is_bot) for s in imported.seats] == [(s.name, s.is_bot) for s in original.seats]
    assert service.records.replay(imported.code) == service.records.replay(code)  # the log, events included
    assert record_of(client, imported.code)["actions"] == record["actions"]


def test_a_record_uploaded_from_the_form_opens_its_replay(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _ = bot_game(service, "tulip-bubble", 3)
    raw = client.get(f"/r/{code}/record.json").content
    assert client.get("/rooms/import").status_code == 200
    answer = client.post(
        "/rooms/import", files={"record": ("game.json", raw, "application/json")}, follow_redirects=False
    )
    assert answer.status_code == 303 and answer.headers["location"].endswith("/replay")
    assert client.get(answer.headers["location"]).status_code == 200
    empty = client.post("/rooms/import", data={"nothing": "here"})
    assert empty.status_code == 400


def _refusal(record: Any) -> tuple[int, str]:
    raw = record if isinstance(record, (bytes, str)) else json.dumps(record)
    with pytest.raises(RoomError) as refused:
        parse_record(raw, ENGINES)
    return refused.value.status, str(refused.value)


def test_a_deeply_nested_upload_is_refused_before_it_is_parsed(client: TestClient) -> None:
    """40 KB of brackets made json.loads recurse past Python's limit: a 500 with a traceback."""
    assert _refusal("[" * 20_000 + "]" * 20_000) == (422, "This file is not a game record.")
    assert _refusal(b'{"a":' * 5000 + b"1" + b"}" * 5000)[0] == 422
    assert _refusal('{"format": "[[[[[[[[[[[[[[[[[[[[[[[[[["}')[0] == 422  # brackets in a string are text
    answer = client.post("/rooms/import", files={"record": ("game.json", b"[" * 40_000, "application/json")})
    assert answer.status_code == 422 and "not a game record" in answer.text


def test_records_that_are_not_whole_legal_games_are_refused(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _ = bot_game(service, "qe", 3)
    record = record_of(client, code)
    assert _refusal(b"not json")[0] == 422
    assert _refusal({**record, "format": "chess"})[0] == 422
    assert _refusal({**record, "game": "chess"}) == (422, "Unknown game.")
    assert _refusal({**record, "options": {"no_such_rule": True}})[0] == 422
    assert _refusal({**record, "seed": "12x"})[0] == 422
    assert _refusal({**record, "seats": record["seats"][:1]})[0] == 422
    assert _refusal({**record, "seats": [{"name": ""}] * 3})[0] == 422
    assert (
        _refusal({**record, "actions": record["actions"][:-1]})[1] == "The record ends before the game does."
    )
    over = [*record["actions"], record["actions"][-1]]
    assert (
        _refusal({**record, "actions": over})[1]
        == f"The record goes on after the game ended (move {len(over)})."
    )
    tampered = [dict(entry) for entry in record["actions"]]
    tampered[0] = {"seat": (tampered[0]["seat"] + 1) % 3, "action": tampered[0]["action"]}
    status, message = _refusal({**record, "actions": tampered})
    assert status == 422 and "Move 1" in message
    junk = [dict(entry) for entry in record["actions"]]
    junk[0] = {"seat": junk[0]["seat"], "action": {"type": "win-the-game"}}
    assert _refusal({**record, "actions": junk}) == (422, "Move 1 of the record is not legal.")
    assert _refusal({**record, "actions": [{"seat": 9, "action": {"type": "x"}}]})[0] == 422
    assert _refusal({**record, "result": {"winners": [9], "scores": []}})[1] == (
        "The record's result does not match its moves."
    )
    assert _refusal(b" " * (RECORD_MAX_BYTES + 1))[0] == 413
    # Through the route: clear 4xx answers, in JSON for JSON.
    answer = client.post("/rooms/import", json={**record, "game": "chess"})
    assert answer.status_code == 422 and answer.json() == {"detail": "Unknown game."}
    page = client.post("/rooms/import?lang=en", files={"record": ("game.json", b"{", "application/json")})
    assert page.status_code == 422 and "This file is not a game record." in page.text


def test_the_replay_log_shows_the_platforms_lines_too(
    service: RoomService, toy_game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A clock that ran out is in the replayed log as it was at the table (the platform's line is
    kept with the action it caused; the engine alone does not know it)."""
    now = [int(time.time() * 1000)]
    monkeypatch.setattr(wallclock, "now_ms", lambda: now[0])
    code, _, _ = service.seats.create_room(toy_game, 3, {}, "Ann", clock=30)
    service.seats.join(code, "Bob")
    service.seats.join(code, "Cy")
    service.seats.start(code, 0)
    now[0] += 31_000
    for _, seat, version in service.turns.due_deadlines(now[0]):
        service.turns.time_out(code, seat, version)
    while (snapshot := service.load(code)).status == "playing":
        for seat in snapshot.to_act():
            service.turns.act(code, seat, service.load(code).version, {"type": "pick", "number": 1})
    snapshot = service.load(code)
    replay = room_replay(service, ReplayCache(), snapshot)
    texts = [event["text"] for event in replay.events_upto(len(replay.states) - 1)]
    assert texts.count(TIMED_OUT) == 3
    assert texts == [event["text"] for event in snapshot.events]


def person_and_bots_game(service: RoomService, game: str, players: int) -> tuple[str, str]:
    """A room where Ann (seat 0, the returned token) plays with bots to the end, no full record agreed."""
    code, _, token = service.seats.create_room(game, players, {}, "Ann")
    assert token is not None
    service.seats.add_bot(code, 0, fill=True)
    service.seats.start(code, 0)
    rng = random.Random(7)
    while (room := service.load(code)).status == "playing":
        if 0 in room.to_act():
            assert room.core is not None
            action = room.engine.bot_action(room.core, 0, rng)
            service.turns.act(code, 0, room.version, action)
        else:
            service.turns.bot_step(code)
    return code, token


def test_a_record_holds_what_its_reader_saw_unless_the_table_agreed_to_a_full_one(client: TestClient) -> None:
    """A finished Q.E. game's record gave every losing sealed bid to anyone with the link."""
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, ann = person_and_bots_game(service, "qe", 3)
    spectators = record_of(client, code)
    assert spectators["record"] == "redacted" and spectators["seen_by"] is None
    assert "seed" not in spectators and "actions" not in spectators
    assert all(set(move) == {"seat", "log"} for move in spectators["moves"])
    assert spectators["result"] == service.load(code).result.to_json()  # type: ignore[union-attr]
    secret_lines = {"You bid {amount} in secret.", "{seat} bid {amount} (you see every bid as auctioneer)."}
    assert not any(line["text"] in secret_lines for move in spectators["moves"] for line in move["log"])
    with TestClient(client.app, cookies={f"bourse_seat_{code}": ann}) as seated:
        anns = record_of(seated, code)
    assert anns["record"] == "redacted" and anns["seen_by"] == 0
    own = [move for move in anns["moves"] if move["seat"] == 0]
    assert own and all("action" in move for move in own)
    assert all("action" not in move for move in anns["moves"] if move["seat"] != 0)
    assert any(line["text"] == "You bid {amount} in secret." for move in own for line in move["log"])
    refused = client.post("/rooms/import", json=anns)
    assert refused.status_code == 422
    assert refused.json() == {
        "detail": "This record holds only what one reader saw: only a full record can be imported."
    }


def test_a_full_record_is_given_once_the_game_is_over_if_the_table_agreed(client: TestClient) -> None:
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann", "full_record": True})
    assert client.get(f"/api/rooms/{created.json()['code']}").json()["full_record"] is True
    assert client.get(f"/r/{created.json()['code']}/record.json").status_code == 409  # not over
    form = client.post("/rooms", data={"game": "qe", "players": "3", "name": "Ann", "full_record": "on"})
    assert service.load(form.url.path.rsplit("/", 1)[1]).full_record
    code, _ = bot_game(service, "qe", 3, full_record=True)
    record = record_of(client, code)
    assert record["record"] == "full" and record["imported"] is False and "seed" in record
    assert client.post("/rooms/import", json=record).status_code == 201
    legacy = {key: value for key, value in record.items() if key not in ("record", "imported")}
    assert client.post("/rooms/import", json=legacy).status_code == 201  # a record from before this field


def test_an_imported_game_says_so_on_its_room_page_replay_and_record(client: TestClient) -> None:
    """An imported record can claim any names: every page showing its game says it was imported."""
    service: RoomService = client.app.state.service  # type: ignore[attr-defined]
    code, _ = bot_game(service, "tulip-bubble", 3)
    imported = client.post("/rooms/import", json=record_of(client, code)).json()["code"]
    mark = "Imported from a game record"
    assert mark not in client.get(f"/r/{code}?lang=en").text
    assert mark not in client.get(f"/r/{code}/replay?lang=en").text
    assert mark in client.get(f"/r/{imported}?lang=en").text
    assert mark in client.get(f"/r/{imported}/replay?lang=en").text
    assert "由對局紀錄匯入" in client.get(f"/r/{imported}?lang=zh_Hant").text
    assert "由对局记录导入" in client.get(f"/r/{imported}/replay?lang=zh_Hans").text
    assert record_of(client, imported)["imported"] is True and record_of(client, code)["imported"] is False
    assert client.get(f"/api/rooms/{imported}").json()["imported"] is True
