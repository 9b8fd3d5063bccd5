"""Killing the server mid-game loses no acknowledged action."""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

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


def test_a_clock_that_runs_out_while_the_server_is_down_fires_once_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real server is killed in the middle of a countdown; the deadline passes while it is down.
    The restarted server lets the seat's bot make exactly that one decision, once."""
    monkeypatch.setenv("BOURSE_CLOCK_PRESETS", "6")
    monkeypatch.setenv("BOURSE_CLOCK_TICK", "0.2")
    database, port = tmp_path / "clock.db", free_port()
    base = f"http://127.0.0.1:{port}/api"
    client = httpx.Client(timeout=60)
    server = start_server(database, port)
    try:
        created = client.post(
            f"{base}/rooms", json={"game": "qe", "players": 3, "name": "Ann", "clock": 6}
        ).json()
        code, host = created["code"], created["token"]
        for name in ("Bob", "Cy"):
            client.post(f"{base}/rooms/{code}/join", json={"name": name})
        client.post(f"{base}/rooms/{code}/start", headers={"Authorization": f"Bearer {host}"})
        started = client.get(f"{base}/rooms/{code}").json()
    finally:
        server.send_signal(signal.SIGKILL)  # in the middle of the first decision's countdown
        server.wait()
    waiting = started["to_act"]
    deadline = max(seat["deadline"] for seat in started["seats"] if seat["seat"] in waiting) / 1000
    assert deadline > time.time(), "the server was killed before the deadline"
    time.sleep(max(0.0, deadline - time.time()) + 0.5)  # the deadline passes while nobody runs
    server = start_server(database, port)
    try:
        timed_out: list[str] = []
        until = time.monotonic() + 15
        while not timed_out and time.monotonic() < until:
            lines = [event["text"] for event in client.get(f"{base}/rooms/{code}/log").json()["events"]]
            timed_out = [line for line in lines if "time ran out" in line]
            time.sleep(0.2)
        after = client.get(f"{base}/rooms/{code}").json()
        assert len(timed_out) == 1, timed_out  # one decision, once (the next one has its own 6 s)
        assert after["version"] == started["version"] + 1
        assert timed_out[0].startswith({0: "Ann", 1: "Bob", 2: "Cy"}[waiting[0]])
    finally:
        server.terminate()
        server.wait()
