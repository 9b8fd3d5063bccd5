"""Each replica of the ``scale`` profile exports its own series at /metrics (issue 47): a move counts
on the process that applied it, a tab on the process it is open on, a change made on one process
is published (and timed) by the other for its tabs, and the rooms read from the shared database are
the same on both."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.games.base import random_legal_action
from tests.scale.cluster import app_env, apps, auth, new_room, tabs
from tests.scale.services import ServiceUrls, fresh_database

pytestmark = pytest.mark.timeout(180)

TOKEN = "scrape-token-of-the-test"
Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture
def database(scale_services: ServiceUrls) -> Iterator[str]:
    with fresh_database(scale_services.postgres) as url:
        yield url


def scrape(client: httpx.Client, url: str) -> Samples:
    assert client.get(f"{url}/metrics").status_code == 401  # each replica guards its own
    answer = client.get(f"{url}/metrics", headers=auth(TOKEN))
    assert answer.status_code == 200, answer.text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_each_replica_exports_its_own_series(
    database: str, scale_services: ServiceUrls, tmp_path: Path
) -> None:
    env = app_env(database, scale_services.redis, BOURSE_METRICS="on", BOURSE_METRICS_TOKEN=TOKEN)
    rng = random.Random(5)
    with apps(2, env, tmp_path) as (one, two), httpx.Client(timeout=30) as client, tabs() as live:
        code, tokens = new_room(client, [one.url], "qe", 2, bots=1)
        live.open("ann", two.url, code, tokens[0])  # a tab on process two only
        live.open("watcher", two.url, code, None)
        start = time.monotonic()
        while time.monotonic() - start < 15 and value(scrape(client, two.url), "bourse_live_tabs") < 2:
            time.sleep(0.1)
        before_one, before_two = scrape(client, one.url), scrape(client, two.url)

        room = client.get(f"{one.url}/api/rooms/{code}").json()
        seat = next(seat for seat in room["to_act"] if seat < len(tokens))
        mine = client.get(f"{one.url}/api/rooms/{code}", headers=auth(tokens[seat])).json()
        for _ in range(50):  # a person's move, applied by process one
            answer = client.post(
                f"{one.url}/api/rooms/{code}/actions",
                json={"version": mine["version"], "action": random_legal_action(mine["legal"], rng)},
                headers=auth(tokens[seat]),
            )
            if answer.status_code == 200:
                break
        assert answer.status_code == 200, answer.text
        live.wait_for(answer.json()["version"], names=["ann"])
        after_one, after_two = scrape(client, one.url), scrape(client, two.url)

    def moved(before: Samples, after: Samples, name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert moved(before_one, after_one, "bourse_moves_accepted_total", game="qe") == 1
    assert moved(before_two, after_two, "bourse_moves_accepted_total", game="qe") == 0
    assert value(after_two, "bourse_live_tabs") == 2 and value(after_two, "bourse_live_spectators") == 1
    assert value(after_one, "bourse_live_tabs") == 0
    assert moved(before_two, after_two, "bourse_publish_seconds_count") >= 1  # the move, heard from one
    assert moved(before_two, after_two, "bourse_publish_bytes_sum") > 0
    assert moved(before_one, after_one, "bourse_publish_bytes_count") == 0  # no tab there
    shared = value(after_one, "bourse_rooms", state="playing")
    assert shared == value(after_two, "bourse_rooms", state="playing") == 1
