"""Settings, read from the environment (and an optional ``.env`` file).

The README's settings table documents each one; keep the two in step.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from pydantic import Field, SecretStr, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}
RATE = re.compile(r"\s*(\d+)\s*/\s*(second|minute|hour|day)s?\s*")
NO_LIMIT = {"", "0", "off", "none", "unlimited"}
# The browsers' push services: Chrome's (Firebase Cloud Messaging, other Chromium browsers' too),
# Firefox's (Mozilla's autopush), Edge's (Windows Notification Service, a host per region) and
# Safari's (Apple's web push, whose hosts Apple asks servers to allow as one domain).
DEFAULT_PUSH_SERVICES = (
    "https://fcm.googleapis.com,https://updates.push.services.mozilla.com,"
    "https://*.notify.windows.com,https://*.push.apple.com"
)


@dataclass(frozen=True)
class Rate:
    """At most ``count`` requests per ``seconds`` for one client, as a burst or spread out.

    ``count`` 0 means no limit."""

    count: int
    seconds: int

    @property
    def unlimited(self) -> bool:
        return self.count == 0


def parse_rate(text: str) -> Rate:
    """``"30/hour"`` (units: second, minute, hour, day); ``"off"`` or ``"0"`` for no limit."""
    if text.strip().lower() in NO_LIMIT:
        return Rate(0, 1)
    match = RATE.fullmatch(text.lower())
    if match is None:
        raise ValueError(f"a rate is like '30/hour' or 'off', not {text!r}")
    return Rate(int(match[1]), UNITS[match[2]])


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    host: str = Field("127.0.0.1", validation_alias="HOST")
    port: int = Field(8000, validation_alias="PORT")
    database_url: str = Field("sqlite:///./data/bourse.db", validation_alias="BOURSE_DATABASE_URL")
    # Several processes (issue 13): "redis://host:6379/0" shares live updates and leases between them;
    # a process that dies leaves its rooms' bots and the clocks to another after the lease's seconds.
    broadcast_url: str = Field("", validation_alias="BOURSE_BROADCAST_URL")
    lease_seconds: float = Field(10.0, validation_alias="BOURSE_LEASE_SECONDS", ge=1)
    bot_delay: float = Field(1.0, validation_alias="BOURSE_BOT_DELAY", ge=0)
    bot_window_delay: float = Field(6.0, validation_alias="BOURSE_BOT_WINDOW_DELAY", ge=0)
    # The most one bot decision may think, in seconds (a safety net: bots stop earlier at a move cap).
    bot_think_seconds: float = Field(1.0, validation_alias="BOURSE_BOT_THINK_SECONDS", gt=0, le=10)
    secure_cookies: bool = Field(False, validation_alias="BOURSE_SECURE_COOKIES")
    # Every speed layer off: no region or fragment cache, each region drawn afresh and sent whole
    # (app/web/render/room.py); `python -m app` freezes the collector once instead of running
    # app/collector.py and takes handshakes as uvicorn does (app/web/handshakes.py). The plain path
    # the fast one must equal; for tests, and for telling a speed layer's bug from the app's.
    plain: bool = Field(False, validation_alias="BOURSE_PLAIN")
    public_url: str = Field("", validation_alias="BOURSE_PUBLIC_URL")
    forwarded_allow_ips: str = Field("127.0.0.1", validation_alias="FORWARDED_ALLOW_IPS")

    # What one client may ask of the server (see app/web/limits.py); a rate "0" or "off" is no limit.
    max_body_bytes: int = Field(64 * 1024, validation_alias="BOURSE_MAX_BODY_BYTES", ge=1024)
    rate_create: str = Field("30/hour", validation_alias="BOURSE_RATE_CREATE")
    rate_join: str = Field("120/hour", validation_alias="BOURSE_RATE_JOIN")
    rate_act: str = Field("120/minute", validation_alias="BOURSE_RATE_ACT")
    rate_connect: str = Field("60/minute", validation_alias="BOURSE_RATE_CONNECT")
    max_sockets_per_client: int = Field(50, validation_alias="BOURSE_MAX_SOCKETS_PER_CLIENT", ge=0)
    max_sockets_per_room: int = Field(200, validation_alias="BOURSE_MAX_SOCKETS_PER_ROOM", ge=0)

    # The cleanup sweep (app/cleanup.py); 0 days keeps those rooms forever, interval 0 never sweeps.
    waiting_room_days: float = Field(7.0, validation_alias="BOURSE_WAITING_ROOM_DAYS", ge=0)
    game_retention_days: float = Field(0.0, validation_alias="BOURSE_GAME_RETENTION_DAYS", ge=0)
    cleanup_interval: float = Field(3600.0, validation_alias="BOURSE_CLEANUP_INTERVAL", ge=0)
    # /healthz answers 503 while the SQLite file's disk has less free space than this (before writes fail).
    min_free_mb: int = Field(64, validation_alias="BOURSE_MIN_FREE_MB", ge=0)

    # Groups (issue 11): turn clocks, away players, table chat.
    # The clocks a host may choose, in seconds per decision (off is always offered).
    clock_presets: str = Field("30,120,600,86400", validation_alias="BOURSE_CLOCK_PRESETS")
    clock_tick: float = Field(
        1.0, validation_alias="BOURSE_CLOCK_TICK", gt=0
    )  # how often deadlines are checked
    away_grace: float = Field(120.0, validation_alias="BOURSE_AWAY_GRACE", ge=0)  # offline this long: away
    rate_chat: str = Field("20/minute", validation_alias="BOURSE_RATE_CHAT")

    # Web Push (issue 23): the VAPID key pair is made at the first start and kept in the database,
    # unless given here (a PEM, or base64url DER or raw: a secret, shown by no repr or log); the
    # subject is the operators' contact.
    vapid_private_key: SecretStr = Field(SecretStr(""), validation_alias="BOURSE_VAPID_PRIVATE_KEY")
    vapid_subject: str = Field("", validation_alias="BOURSE_VAPID_SUBJECT")
    # The push services the server posts to, as origins separated by commas ("https://push.example.net",
    # "https://*.example.net"); by default the browsers' (app/rooms/push_services.py).
    push_services: str = Field(DEFAULT_PUSH_SERVICES, validation_alias="BOURSE_PUSH_SERVICES")
    push_timeout: float = Field(10.0, validation_alias="BOURSE_PUSH_TIMEOUT", gt=0, le=60)

    # Watching it run (issue 47): /metrics for Prometheus (off: 404), optionally behind a bearer token;
    # the log's level and format (json: one object a line, for a container's log pipeline).
    metrics: bool = Field(False, validation_alias="BOURSE_METRICS")
    metrics_token: SecretStr = Field(SecretStr(""), validation_alias="BOURSE_METRICS_TOKEN")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"] = Field(
        "INFO", validation_alias="BOURSE_LOG_LEVEL"
    )
    log_format: Literal["text", "json"] = Field("text", validation_alias="BOURSE_LOG_FORMAT")

    @property
    def push_contact(self) -> str:
        """Who the push services may write to about this server's pushes (VAPID's ``sub``)."""
        if self.vapid_subject:
            return self.vapid_subject
        return self.public_url if self.public_url.startswith("https://") else "mailto:bourse@localhost"

    @property
    def clocks(self) -> tuple[int, ...]:
        """The clock presets, in seconds, shortest first."""
        return tuple(sorted(int(part) for part in self.clock_presets.split(",") if part.strip()))

    @field_validator("log_level", "log_format", mode="before")
    @classmethod
    def _any_case(cls, value: object, info: ValidationInfo) -> object:
        if not isinstance(value, str):
            return value
        return value.strip().upper() if info.field_name == "log_level" else value.strip().lower()

    @field_validator("clock_presets")
    @classmethod
    def _are_seconds(cls, value: str) -> str:
        parts = [part.strip() for part in value.split(",") if part.strip()]
        if not parts or not all(part.isdigit() and int(part) > 0 for part in parts):
            raise ValueError(f"clock presets are seconds separated by commas, like '30,120', not {value!r}")
        return value

    @field_validator("push_services")
    @classmethod
    def _are_push_services(cls, value: str) -> str:
        from app.rooms.push_services import PushServices  # the rooms layer's reading of them

        PushServices.named(value)  # ValueError, said plainly, for an origin that is not one
        return value

    @field_validator("rate_create", "rate_join", "rate_act", "rate_connect", "rate_chat")
    @classmethod
    def _is_a_rate(cls, value: str) -> str:
        parse_rate(value)
        return value


@lru_cache
def get_settings() -> Settings:
    return Settings()
