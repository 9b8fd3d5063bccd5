"""One process and two replicas on Redis count the rate limits the same way (issue 47): the `limits`
library's moving window, in memory or in Redis. The same burst, and the same requests a moment
later, are refused alike and told to wait alike. (One process used to keep token buckets: it let a
request through as soon as a token came back, and told a client refused a room to wait 12 minutes,
where the replicas said an hour.)"""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest

from tests.scale.cluster import app_env, apps
from tests.scale.services import ServiceUrls, emptied_redis, fresh_database

pytestmark = pytest.mark.timeout(240)

RATES = {"BOURSE_RATE_CREATE": "5/hour", "BOURSE_RATE_JOIN": "2/second"}
ROOM = {"game": "qe", "players": 5, "name": "Ann"}
AN_HOUR = "about an hour"
# The room the joins go to, then five more rooms at once; then joins: two at once and a third, one
# a moment later, and one once the first two have left their second.
EXPECTED = [(201, "")] * 5 + [(429, AN_HOUR)] + [(201, ""), (201, ""), (429, "1"), (429, "1"), (201, "")]


def answer(response: httpx.Response) -> tuple[int, str]:
    """The status and, when refused, Retry-After (an hour's, within the seconds a test takes)."""
    wait = response.headers.get("Retry-After", "")
    return response.status_code, AN_HOUR if wait and 3500 <= int(wait) <= 3600 else wait


def burst_and_pause(urls: list[str]) -> list[tuple[int, str]]:
    """The requests EXPECTED describes, each to the next of ``urls`` in turn."""
    turn = iter(range(1000))

    def post(path: str, body: dict[str, object]) -> httpx.Response:
        return client.post(f"{urls[next(turn) % len(urls)]}{path}", json=body)

    with httpx.Client(timeout=30) as client:
        first = post("/api/rooms", ROOM)
        code = first.json()["code"]
        answers = [answer(first)] + [answer(post("/api/rooms", ROOM)) for _ in range(5)]
        answers += [answer(post(f"/api/rooms/{code}/join", {"name": f"P{n}"})) for n in range(3)]
        second_join = time.monotonic()
        time.sleep(0.3)
        answers.append(answer(post(f"/api/rooms/{code}/join", {"name": "P3"})))  # both still in the window
        time.sleep(max(0.0, second_join + 1.3 - time.monotonic()))
        answers.append(answer(post(f"/api/rooms/{code}/join", {"name": "P4"})))  # both have left it
    return answers


def test_one_process_and_two_replicas_refuse_the_same_requests_alike(
    scale_services: ServiceUrls, tmp_path: Path
) -> None:
    one_env = {
        **app_env(f"sqlite:///{tmp_path}/bourse.db", "", **RATES),
        "BOURSE_BROADCAST_URL": "",  # one process: the limits in its memory
    }
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
    with apps(1, one_env, tmp_path / "one") as [alone]:
        one = burst_and_pause([alone.url])
    with fresh_database(scale_services.postgres) as database:
        env = app_env(database, emptied_redis(scale_services.redis, 8), **RATES)
        with apps(2, env, tmp_path / "two") as replicas:
            two = burst_and_pause([replica.url for replica in replicas])
    assert one == EXPECTED
    assert two == EXPECTED
