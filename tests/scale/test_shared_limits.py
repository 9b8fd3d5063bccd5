"""With Redis, the rate limits are counted where every process sees them (issue 21): a client that
spreads its requests over two processes still gets each limit once."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import pytest

from tests.scale.cluster import app_env, apps
from tests.scale.services import ServiceUrls, emptied_redis, fresh_database

pytestmark = pytest.mark.timeout(180)

CREATIONS = 4  # rooms one client may create an hour, in the test


@pytest.fixture
def redis_url(scale_services: ServiceUrls) -> str:
    """The test's own Redis database, emptied first."""
    return emptied_redis(scale_services.redis, 7)


def test_two_processes_share_one_room_creation_limit(
    scale_services: ServiceUrls, redis_url: str, tmp_path: Path
) -> None:
    with fresh_database(scale_services.postgres) as database:
        env = app_env(database, redis_url, BOURSE_RATE_CREATE=f"{CREATIONS}/hour")
        with apps(2, env, tmp_path) as (first, second), httpx.Client(timeout=30) as client:
            answers = [
                client.post(
                    f"{(first, second)[number % 2].url}/api/rooms",
                    json={"game": "qe", "players": 3, "name": f"Ann {secrets.token_hex(2)}"},
                )
                for number in range(CREATIONS + 2)
            ]
    assert [answer.status_code for answer in answers] == [201] * CREATIONS + [429, 429]
    refused = answers[-1]
    assert 1 <= int(refused.headers["Retry-After"]) <= 3600
