"""PostgreSQL and Redis for the tests: the ones named by BOURSE_TEST_POSTGRES_URL and
BOURSE_TEST_REDIS_URL (``.ci/run`` starts them with ``scripts/services``), or else a pair started by
``scripts/services`` for this test session. Without them (and not root to install them) the tests
that need them are skipped, or fail under CI."""

from __future__ import annotations

import glob
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from tests.support import ROOT

SERVICES = ROOT / "scripts" / "services"
POSTGRES = "/usr/lib/postgresql/*/bin/initdb"


@dataclass(frozen=True)
class ServiceUrls:
    postgres: str
    redis: str


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (.ci/run starts them with scripts/services)")
    pytest.skip(reason)


@cache
def _started() -> tuple[ServiceUrls, str | None] | str:
    """The services' URLs and the folder of those this session started (or why there are none)."""
    postgres, redis = os.environ.get("BOURSE_TEST_POSTGRES_URL"), os.environ.get("BOURSE_TEST_REDIS_URL")
    if postgres and redis:
        return ServiceUrls(postgres, redis), None
    if os.geteuid() != 0 and not (shutil.which("redis-server") and glob.glob(POSTGRES)):
        return "PostgreSQL and Redis are not installed: sudo apt-get install postgresql redis-server"
    folder = tempfile.mkdtemp(prefix="bourse-services-")
    started = subprocess.run(
        [str(SERVICES), "start"],
        env={**os.environ, "BOURSE_SERVICES_DIR": folder},
        capture_output=True,
        text=True,
        timeout=600,
    )
    if started.returncode != 0:
        return f"scripts/services could not start PostgreSQL and Redis: {started.stderr.strip()[-500:]}"
    urls = dict(
        line.removeprefix("export ").split("=", 1)
        for line in (Path(folder) / "env").read_text().splitlines()
        if "=" in line
    )
    return ServiceUrls(urls["BOURSE_TEST_POSTGRES_URL"], urls["BOURSE_TEST_REDIS_URL"]), folder


def running_services() -> ServiceUrls:
    """The services' URLs (skips the test, or fails it under CI, when there are none)."""
    started = _started()
    if isinstance(started, str):
        _unavailable(started)
        raise AssertionError("unreachable")  # skip and fail raise
    return started[0]


def stop_services() -> None:
    """Stop what this session started (the session's end calls it)."""
    if _started.cache_info().currsize:
        started = _started()
        if not isinstance(started, str) and started[1] is not None:
            subprocess.run(
                [str(SERVICES), "stop"], env={**os.environ, "BOURSE_SERVICES_DIR": started[1]}, check=False
            )


def libpq_url(url: str) -> str:
    """SQLAlchemy's ``postgresql+psycopg://`` as psycopg itself takes it."""
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@contextmanager
def fresh_database(server_url: str) -> Iterator[str]:
    """A new, empty database on the server, dropped afterwards; its SQLAlchemy URL."""
    import psycopg

    name = f"test_{secrets.token_hex(6)}"
    with psycopg.connect(libpq_url(server_url), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield server_url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(libpq_url(server_url), autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def emptied_redis(server_url: str, database: int) -> str:
    """The URL of Redis database ``database`` on ``server_url``'s server, emptied first: counters a test
    keeps there (rate limits, socket counts) outlive a run for an hour, or a killed process's lease."""
    import redis  # only the tests of several processes need the client

    url = server_url.rsplit("/", 1)[0] + f"/{database}"
    with redis.Redis.from_url(url) as client:
        client.flushdb()
    return url
