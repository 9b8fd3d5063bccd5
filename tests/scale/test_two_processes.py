"""Two app processes on one PostgreSQL and one Redis serve one room's players as one server would
(issue 13): every tab sees every change, a conflict applies once, a killed process loses nothing it
acknowledged and its bots go on in the other, and a Redis restart costs an update, never a screen."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.games.base import random_legal_action
from tests.scale.cluster import App, app_env, apps, auth, new_room, tabs
from tests.scale.services import ServiceUrls, fresh_database
from tests.support import free_port

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def database(scale_services: ServiceUrls) -> Iterator[str]:
    with fresh_database(scale_services.postgres) as url:
        yield url


@pytest.fixture
def client() -> Iterator[httpx.Client]:
    with httpx.Client(timeout=30) as opened:
        yield opened


def act_randomly(client: httpx.Client, url: str, code: str, tokens: list[str], rng: random.Random) -> int:
    """One legal action of a person whose turn it is, sent to ``url``; the version it made."""
    room = client.get(f"{url}/api/rooms/{code}").json()
    people = [seat for seat in room["to_act"] if seat < len(tokens)]
    assert people, room
    seat = rng.choice(people)
    mine = client.get(f"{url}/api/rooms/{code}", headers=auth(tokens[seat])).json()
    for _ in range(50):
        answer = client.post(
            f"{url}/api/rooms/{code}/actions",
            json={"version": mine["version"], "action": random_legal_action(mine["legal"], rng)},
            headers=auth(tokens[seat]),
        )
        if answer.status_code == 200:
            return int(answer.json()["version"])
        assert answer.status_code == 422, answer.text  # a random amount may be refused by the rules
    raise AssertionError("no legal action was accepted")


def send_together(
    addresses: list[str], body: dict[str, Any], headers: dict[str, str]
) -> list[httpx.Response]:
    """POST the same body to each address at the same moment (threads released by one barrier)."""
    barrier = threading.Barrier(len(addresses))

    def send(address: str) -> httpx.Response:
        with httpx.Client(timeout=30) as own:
            barrier.wait()
            return own.post(address, json=body, headers=headers)

    with ThreadPoolExecutor(len(addresses)) as pool:
        return list(pool.map(send, addresses))


def version_of(client: httpx.Client, url: str, code: str) -> int:
    return int(client.get(f"{url}/api/rooms/{code}").json()["version"])


def test_the_seats_of_one_room_on_two_processes_all_see_every_change(
    database: str, scale_services: ServiceUrls, client: httpx.Client, tmp_path: Path
) -> None:
    rng = random.Random(13)
    with apps(2, app_env(database, scale_services.redis), tmp_path) as (one, two), tabs() as live:
        urls = [one.url, two.url]
        code, tokens = new_room(client, urls, "qe", 4)
        for seat, token in enumerate(tokens):  # seats 0 and 2 on one process, 1 and 3 on the other
            live.open(f"seat{seat}", urls[seat % 2], code, token)
        live.open("spectator one", one.url, code, None)
        live.open("spectator two", two.url, code, None)
        assert set(live.wait_for(version_of(client, one.url, code)).values()) == {
            version_of(client, one.url, code)
        }
        for turn in range(16):  # actions alternate between the processes
            version = act_randomly(client, urls[turn % 2], code, tokens, rng)
            seen = live.wait_for(version)
            assert all(shown == version for shown in seen.values()), (turn, version, seen)
        # Presence crosses too: seat 1 (on process two) is connected in process one's seat list.
        one_sees = client.get(f"{one.url}/api/rooms/{code}").json()
        assert all(seat["connected"] for seat in one_sees["seats"]), one_sees["seats"]


def test_conflicting_actions_sent_to_both_processes_apply_exactly_once(
    database: str, scale_services: ServiceUrls, client: httpx.Client, tmp_path: Path
) -> None:
    rng = random.Random(7)
    with apps(2, app_env(database, scale_services.redis), tmp_path) as (one, two):
        code, tokens = new_room(client, [one.url, two.url], "qe", 3)
        conflicts = 0
        for _ in range(12):
            room = client.get(f"{one.url}/api/rooms/{code}").json()
            seat = room["to_act"][0]
            mine = client.get(f"{one.url}/api/rooms/{code}", headers=auth(tokens[seat])).json()
            action = random_legal_action(mine["legal"], rng)
            before = version_of(client, one.url, code)
            answers = send_together(
                [f"{url}/api/rooms/{code}/actions" for url in (one.url, two.url)],
                {"version": mine["version"], "action": action},
                auth(tokens[seat]),
            )
            codes = sorted(answer.status_code for answer in answers)
            after = version_of(client, two.url, code)  # each applied action moves the version by one
            if codes == [422, 422]:  # the rules refused that amount on both: nothing applied
                assert after == before
                continue
            assert codes == [200, 409], [answer.text for answer in answers]
            assert after == before + 1
            conflicts += 1
        assert conflicts >= 6


def test_a_killed_process_loses_nothing_acknowledged_and_its_bots_go_on_in_the_other(
    database: str, scale_services: ServiceUrls, client: httpx.Client, tmp_path: Path
) -> None:
    rng = random.Random(3)
    env = app_env(database, scale_services.redis, BOURSE_BOT_DELAY="0.3")
    with apps(2, env, tmp_path) as (one, two):
        code, tokens = new_room(client, [one.url], "qe", 1, bots=2)  # the bots are driven by process one
        acknowledged = 0
        for _ in range(4):
            deadline = time.monotonic() + 30
            while 0 not in client.get(f"{one.url}/api/rooms/{code}").json()["to_act"]:
                assert time.monotonic() < deadline, "the bots did not play on process one"
                time.sleep(0.05)
            acknowledged = act_randomly(client, one.url, code, tokens, rng)
        one.kill()
        # Every acknowledged action is kept (the version counts the actions applied).
        assert version_of(client, two.url, code) >= acknowledged
        # The bots go on, now driven by process two (after the dead process's lease runs out).
        moved_to = version_of(client, two.url, code)
        deadline = time.monotonic() + 30
        while True:
            room = client.get(f"{two.url}/api/rooms/{code}").json()
            if room["status"] == "finished" or (room["version"] > moved_to and 0 in room["to_act"]):
                break
            if 0 in room["to_act"]:
                moved_to = act_randomly(client, two.url, code, tokens, rng)
            assert time.monotonic() < deadline, "the bots did not go on in process two"
            time.sleep(0.05)
        assert "bots of room" not in two.log.read_text()  # no bot stopped on an error


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[tuple[list[str], int]]:
    """A Redis of this test's own (the test restarts it): its command line and port."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (scripts/services installs it)")
    port = free_port()
    command = [server, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"]
    command += ["--dir", str(tmp_path)]
    yield command, port


def start_redis(command: list[str], port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    import redis

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            redis.Redis(port=port, socket_timeout=1).ping()
            return process
        except redis.RedisError:
            time.sleep(0.05)
    process.kill()
    raise RuntimeError("redis-server did not start")


def test_after_a_redis_restart_every_tab_shows_the_right_version(
    database: str,
    own_redis: tuple[list[str], int],
    client: httpx.Client,
    tmp_path: Path,
) -> None:
    rng = random.Random(11)
    command, port = own_redis
    redis_server = start_redis(command, port)
    try:
        env = app_env(database, f"redis://127.0.0.1:{port}/0")
        with apps(2, env, tmp_path) as (one, two), tabs() as live:
            urls = [one.url, two.url]
            code, tokens = new_room(client, urls, "qe", 3)
            for seat, token in enumerate(tokens):
                live.open(f"seat{seat}", urls[seat % 2], code, token)
            live.open("spectator", two.url, code, None)
            version = act_randomly(client, one.url, code, tokens, rng)
            assert set(live.wait_for(version).values()) == {version}

            redis_server.send_signal(signal.SIGKILL)  # mid-game, without a word
            redis_server.wait()
            for turn in range(4):  # moves while Redis is away: each process's own tabs still follow
                version = act_randomly(client, urls[turn % 2], code, tokens, rng)
            redis_server = start_redis(command, port)
            seen = live.wait_for(version, timeout=30)
            assert set(seen.values()) == {version}, seen
            version = act_randomly(client, two.url, code, tokens, rng)  # and it carries on as before
            assert set(live.wait_for(version).values()) == {version}
    finally:
        redis_server.kill()
        redis_server.wait()


def test_a_process_that_dies_hands_the_clocks_to_another(
    database: str, scale_services: ServiceUrls, client: httpx.Client, tmp_path: Path
) -> None:
    """One process runs the clocks (a lease); when it dies another does, so a clock still runs out."""
    env = app_env(database, scale_services.redis, BOURSE_CLOCK_PRESETS="1,30")
    with apps(1, env, tmp_path) as (one,):
        two = App(env, tmp_path / "two.log")  # started second: process one holds the clocks
        try:
            created = client.post(
                f"{one.url}/api/rooms", json={"game": "qe", "players": 3, "name": "Ann", "clock": 1}
            )
            assert created.status_code == 201, created.text
            code, token = created.json()["code"], created.json()["token"]
            added = client.post(f"{one.url}/api/rooms/{code}/bots", headers=auth(token), json={"fill": True})
            assert added.status_code in (200, 201), added.text
            one.kill()
            client.post(f"{two.url}/api/rooms/{code}/start", headers=auth(token)).raise_for_status()
            deadline = time.monotonic() + 30
            while "time ran out" not in str(client.get(f"{two.url}/api/rooms/{code}/log").json()):
                assert time.monotonic() < deadline, "no clock ran out after its process died"
                time.sleep(0.2)
        finally:
            two.stop()


def test_the_tabs_of_a_killed_process_count_as_closed_after_three_leases_then_away_after_the_grace(
    database: str, scale_services: ServiceUrls, client: httpx.Client, tmp_path: Path
) -> None:
    env = app_env(database, scale_services.redis, BOURSE_AWAY_GRACE="4")
    with apps(2, env, tmp_path) as (one, two), tabs() as live:
        code, tokens = new_room(client, [one.url, two.url], "qe", 3)
        live.open("seat0", one.url, code, tokens[0])
        live.open("seat1", two.url, code, tokens[1])

        def seats() -> list[tuple[bool, bool]]:
            room = client.get(f"{two.url}/api/rooms/{code}").json()
            return [(seat["connected"], seat["away"]) for seat in room["seats"]]

        deadline = time.monotonic() + 10
        while [connected for connected, _ in seats()] != [True, True, False]:  # two knows of one's tab
            assert time.monotonic() < deadline, seats()
            time.sleep(0.05)
        one.kill()  # its tab is gone without a word
        deadline = time.monotonic() + 20  # three leases of 2 s, and the sweep's period
        while seats()[0][0]:
            assert time.monotonic() < deadline, seats()
            time.sleep(0.1)
        gone_at = time.monotonic()
        # Away counts from when it went, as for a tab closed on this process (not from this
        # process's start, long enough ago to make it away at once).
        assert seats()[0] == (False, False)
        while not seats()[0][1]:
            assert time.monotonic() < gone_at + 10, seats()
            time.sleep(0.1)
        assert time.monotonic() - gone_at > 2


def test_a_chat_line_said_on_one_process_reaches_the_tabs_of_the_other(
    database: str, scale_services: ServiceUrls, client: httpx.Client, tmp_path: Path
) -> None:
    with apps(2, app_env(database, scale_services.redis), tmp_path) as (one, two), tabs() as live:
        code, tokens = new_room(client, [one.url, two.url], "qe", 3)
        live.open("seat1 on two", two.url, code, tokens[1])
        live.open("spectator on two", two.url, code, None)
        live.wait_for(version_of(client, two.url, code))
        said = client.post(
            f"{one.url}/api/rooms/{code}/chat", headers=auth(tokens[0]), json={"text": "Bids &lt;3 from one"}
        )
        assert said.status_code == 201, said.text
        deadline = time.monotonic() + 10
        while not all(any("Bids" in text for text in live.texts[name]) for name in live.texts):
            assert time.monotonic() < deadline, "the chat line did not reach process two's tabs"
            time.sleep(0.05)
        pushed = next(text for text in live.texts["spectator on two"] if "Bids" in text)
        assert "chat-list" in pushed and "&amp;lt;3" in pushed  # drawn there, escaped as on one process
