"""Killing the server mid-game loses no acknowledged action."""

from __future__ import annotations

import random
import signal

import httpx
import pytest

from app.games.base import random_legal_action
from tests.support import free_port, start_server


@pytest.mark.both_databases
def test_a_killed_server_keeps_every_acknowledged_action(database_url: str) -> None:
    database, port = database_url, free_port()
    base = f"http://127.0.0.1:{port}/api"
    rng = random.Random(5)
    client = httpx.Client(
        timeout=60
    )  # a loaded CI machine may answer slowly; the test is about loss, not speed
    server = start_server(database, port)
    try:
        created = client.post(f"{base}/rooms", json={"game": "qe", "players": 3, "name": "Ann"}).json()
        code, tokens = created["code"], [created["token"]]
        tokens += [
            client.post(f"{base}/rooms/{code}/join", json={"name": n}).json()["token"] for n in ("Bob", "Cy")
        ]
        client.post(f"{base}/rooms/{code}/start", headers={"Authorization": f"Bearer {tokens[0]}"})
        acknowledged = 0
        for _ in range(12):
            room = client.get(f"{base}/rooms/{code}").json()
            seat = room["to_act"][0]
            headers = {"Authorization": f"Bearer {tokens[seat]}"}
            mine = client.get(f"{base}/rooms/{code}", headers=headers).json()
            answer = client.post(
                f"{base}/rooms/{code}/actions",
                json={"version": mine["version"], "action": random_legal_action(mine["legal"], rng)},
                headers=headers,
            )
            acknowledged += answer.status_code == 200
        before = client.get(f"{base}/rooms/{code}", headers={"Authorization": f"Bearer {tokens[1]}"}).json()
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait()
    assert acknowledged >= 10
    server = start_server(database, port)
    try:
        after = client.get(f"{base}/rooms/{code}", headers={"Authorization": f"Bearer {tokens[1]}"}).json()
        assert after["version"] == before["version"] and after["view"] == before["view"]
        assert len(client.get(f"{base}/rooms/{code}/log").json()["events"]) > 0
    finally:
        server.terminate()
        server.wait()
