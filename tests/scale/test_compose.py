"""docker-compose.yml (one container) and docker-compose.scale.yml (PostgreSQL, Redis, two replicas,
nginx) as an operator gets them (issue 47, issue 43): the scale set-up's replicas wait for healthy
PostgreSQL and Redis, its password must be set while the one container needs none, and by default
no one's X-Forwarded-For chooses the address the rate limits count. deploy/smoke runs both files."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.scale.cluster import App
from tests.support import ROOT

pytestmark = pytest.mark.timeout(180)

ONE = ROOT / "docker-compose.yml"
SCALE = ROOT / "docker-compose.scale.yml"
CREATIONS = 3


def service(path: Path, name: str) -> str:
    """The lines of service ``name`` in a compose file (the project has no YAML parser of its own)."""
    found = re.search(rf"^  {name}:.*?\n(.*?)(?=^  \S|^\S|\Z)", path.read_text(), re.MULTILINE | re.DOTALL)
    assert found, f"{path.name} has no service {name}"
    return found[1]


def default(path: Path, name: str, variable: str) -> str:
    """What the file sets ``variable`` to in service ``name`` when the operator sets nothing
    (``${NAME:-default}`` filled in as Compose does)."""
    found = re.search(rf"^      {variable}: \$\{{{variable}:-([^}}]*)\}}$", service(path, name), re.MULTILINE)
    assert found, f"{name} in {path.name} does not take {variable} from the environment"
    return found[1]


def test_the_replicas_start_once_postgresql_and_redis_are_healthy() -> None:
    for dependency in ("postgres", "redis"):
        assert re.search(
            r"^    healthcheck:.*\n      test: \[\"CMD-SHELL\", ", service(SCALE, dependency), re.MULTILINE
        )
    waits = (
        "    depends_on:\n"
        "      postgres:\n        condition: service_healthy\n"
        "      redis:\n        condition: service_healthy\n"
    )
    assert waits in service(SCALE, "app1")
    assert "    <<: *replica\n" in service(SCALE, "app2")  # app1's, depends_on included


def test_the_database_password_must_be_set_for_the_scale_set_up_only() -> None:
    text = SCALE.read_text()
    uses = re.findall(r"\$\{POSTGRES_PASSWORD[^}]*\}", text)
    assert len(uses) == 2  # PostgreSQL's own, and the replicas' database URL
    assert all(use.startswith("${POSTGRES_PASSWORD:?") for use in uses), uses
    assert "change-me" not in text
    assert "POSTGRES_PASSWORD" not in ONE.read_text()  # `docker compose up -d` needs no .env


def test_by_default_the_one_container_takes_no_ones_forwarded_for(tmp_path: Path) -> None:
    """A visitor who reaches the container from loopback (host networking, a port forwarder) with a
    forged X-Forwarded-For is still one client to the limits."""
    env = {
        "BOURSE_DATABASE_URL": f"sqlite:///{tmp_path}/bourse.db",
        "BOURSE_RATE_CREATE": f"{CREATIONS}/hour",
        "BOURSE_CLEANUP_INTERVAL": "0",
        "FORWARDED_ALLOW_IPS": default(ONE, "bourse", "FORWARDED_ALLOW_IPS"),
    }
    app = App(env, tmp_path / "app.log")
    try:
        answers = [
            httpx.post(
                f"{app.url}/api/rooms",
                json={"game": "qe", "players": 3, "name": "Ann"},
                headers={"X-Forwarded-For": f"203.0.113.{number}"},
                timeout=30,
            ).status_code
            for number in range(CREATIONS + 2)
        ]
    finally:
        app.stop()
    assert answers == [201] * CREATIONS + [429, 429]
