"""The JSON API: a whole Q.E. game through it, refusals that change nothing, and restarts."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from app.config import Settings
from app.games.base import random_legal_action
from app.games.registry import ENGINES
from app.web.api import Room
from app.web.app import create_app
from app.web.live import LiveRooms

BIG = 10000000000000000000001


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def new_qe_room(client: TestClient, players: int) -> tuple[str, list[str]]:
    created = client.post("/api/rooms", json={"game": "qe", "players": players, "name": "Ann"})
    assert created.status_code == 201, created.text
    code, tokens = created.json()["code"], [created.json()["token"]]
    for name in ("Bob", "Cy", "Di", "Ed")[: players - 1]:
        joined = client.post(f"/api/rooms/{code}/join", json={"name": name})
        assert joined.status_code == 201, joined.text
        tokens.append(joined.json()["token"])
    started = client.post(f"/api/rooms/{code}/start", headers=auth(tokens[0]))
    assert started.status_code == 200, started.text
    return code, tokens


def play_random_move(client: TestClient, code: str, tokens: list[str], rng: random.Random) -> dict[str, Any]:
    room = client.get(f"/api/rooms/{code}").json()
    seat = rng.choice(room["to_act"])
    mine = client.get(f"/api/rooms/{code}", headers=auth(tokens[seat])).json()
    for _ in range(100):
        action = random_legal_action(mine["legal"], rng)
        answer = client.post(
            f"/api/rooms/{code}/actions",
            json={"version": mine["version"], "action": action},
            headers=auth(tokens[seat]),
        )
        if answer.status_code == 200:
            return answer.json()
        assert answer.status_code == 422, answer.text
    raise AssertionError("no legal action found")


def assert_answers_its_model(answer: dict[str, Any]) -> None:
    """``GET /api/rooms/{code}`` answers its JSON directly, not through FastAPI's response model: the
    answer must still be exactly what the model would have made of it."""
    assert Room.model_validate(answer).model_dump(mode="json") == answer


def test_games_are_listed(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        games = {game["id"]: game for game in client.get("/api/games").json()}
    assert set(games) == set(ENGINES)
    assert games["qe"]["players"] == {"min": 3, "max": 5}


def test_a_full_four_player_qe_game_through_the_api(settings: Settings) -> None:
    rng = random.Random(4)
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 4)
        room: dict[str, Any] = client.get(f"/api/rooms/{code}").json()
        assert room["status"] == "playing" and room["view"] is not None and room["legal"] == []
        moves = 0
        while room["status"] == "playing":
            room = play_random_move(client, code, tokens, rng)
            moves += 1
            assert moves < 2000
            looked = client.get(f"/api/rooms/{code}", headers=auth(tokens[moves % 4])).json()
            assert_answers_its_model(looked)
        assert room["result"]["winners"]
        assert_answers_its_model(client.get(f"/api/rooms/{code}").json())
        log = client.get(f"/api/rooms/{code}/log", headers=auth(tokens[0])).json()["events"]
        assert log and all(isinstance(event["text"], str) for event in log)


def test_refusals_leave_the_room_unchanged(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 3)
        room = client.get(f"/api/rooms/{code}").json()
        auctioneer = room["to_act"][0]
        other = (auctioneer + 1) % 3
        version = room["version"]

        def post(token: str | None, body: Any) -> Any:
            return client.post(f"/api/rooms/{code}/actions", json=body, headers=auth(token) if token else {})

        bid = {"type": "open_bid", "amount": 5}
        assert post(tokens[other], {"version": version, "action": bid}).status_code == 403  # not your turn
        assert post(None, {"version": version, "action": bid}).status_code == 403  # spectator
        assert post("forged-token", {"version": version, "action": bid}).status_code == 403
        refused = post(
            tokens[auctioneer], {"version": version, "action": {"type": "open_bid", "amount": "-3"}}
        )
        assert refused.status_code == 422 and refused.json()["detail"]
        assert (
            post(
                tokens[auctioneer], {"version": version, "action": {"type": "open_bid", "amount": "1.5"}}
            ).status_code
            == 422
        )
        assert post(tokens[auctioneer], {"version": version + 3, "action": bid}).status_code == 409
        assert post(tokens[auctioneer], {"version": "x", "action": bid}).status_code == 422  # malformed body
        assert post(tokens[auctioneer], {"action": bid}).status_code == 422
        assert (
            client.post("/api/rooms/nosuchroom234/actions", json={"version": 1, "action": bid}).status_code
            == 404
        )
        assert client.get("/api/rooms/nosuchroom234").status_code == 404
        assert client.get(f"/api/rooms/{code}").json()["version"] == version
        assert client.get(f"/api/rooms/{code}/log").json()["events"] == room_log(client, code)

        accepted = post(
            tokens[auctioneer], {"version": version, "action": {"type": "open_bid", "amount": str(BIG)}}
        )
        assert accepted.status_code == 200, accepted.text
        duplicate = post(tokens[auctioneer], {"version": version, "action": bid})
        assert duplicate.status_code in (403, 409)
        assert client.get(f"/api/rooms/{code}").json()["version"] == version + 1
        assert str(BIG) in client.get(f"/api/rooms/{code}").text  # the open bid is public and exact


def room_log(client: TestClient, code: str) -> list[Any]:
    return client.get(f"/api/rooms/{code}/log").json()["events"]


def test_a_new_app_on_the_same_database_continues_the_game(settings: Settings) -> None:
    rng = random.Random(9)
    with TestClient(create_app(settings)) as client:
        code, tokens = new_qe_room(client, 3)
        for _ in range(7):
            play_random_move(client, code, tokens, rng)
        before = client.get(f"/api/rooms/{code}", headers=auth(tokens[1])).json()
    with TestClient(create_app(settings)) as client:
        after = client.get(f"/api/rooms/{code}", headers=auth(tokens[1])).json()
        assert after == before
        play_random_move(client, code, tokens, rng)
        assert client.get(f"/api/rooms/{code}").json()["version"] == before["version"] + 1


def test_bots_fill_and_finish_a_game(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        created = client.post("/api/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        code, token = created["code"], created["token"]
        assert (
            client.post(f"/api/rooms/{code}/bots", json={"fill": True}, headers=auth(token)).status_code
            == 200
        )
        assert client.post(f"/api/rooms/{code}/bots", json={"fill": True}).status_code == 403
        client.post(f"/api/rooms/{code}/start", headers=auth(token))
        assert (
            client.post(f"/api/rooms/{code}/bots", json={"seat": 0}, headers=auth(token)).status_code == 200
        )
        live: LiveRooms = client.app.state.live  # type: ignore[attr-defined]
        assert client.portal is not None  # inside `with TestClient(...)`
        for _ in range(500):
            if client.get(f"/api/rooms/{code}").json()["status"] == "finished":
                break
            client.portal.call(live.idle)
        assert client.get(f"/api/rooms/{code}").json()["status"] == "finished"


def test_the_app_creates_its_database_folder(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh' / 'data' / 'bourse.db'}"
    with TestClient(create_app(Settings(BOURSE_DATABASE_URL=url))) as client:
        assert client.get("/healthz").json() == {"status": "ok"}
